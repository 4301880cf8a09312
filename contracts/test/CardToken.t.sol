// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {CardToken} from "../src/CardToken.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC1155Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";

contract NotAReceiver {}

contract Holder is ERC1155Holder {}

contract CardTokenTest is Test {
    CardToken token;
    address admin = address(0xA11CE);
    address alice = address(0xA1);
    address bob = address(0xB0B);

    function setUp() public {
        token = new CardToken("https://cards.example/{id}.json", admin);
    }

    function test_TokenIdMatchesCatalogueScheme() public view {
        assertEq(token.tokenId("metax", "U92-JL"), uint256(keccak256("metax:U92-JL")));
    }

    function test_MintAndSupply() public {
        vm.prank(admin);
        token.mint(alice, 7, 3, "");
        assertEq(token.balanceOf(alice, 7), 3);
        assertEq(token.totalSupply(7), 3);
        assertEq(token.totalSupply(), 3);
        assertTrue(token.exists(7));
    }

    function test_RevertWhen_MintWithoutMinterRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, token.MINTER_ROLE())
        );
        vm.prank(alice);
        token.mint(alice, 1, 1, "");
    }

    function test_RevertWhen_MintToNonReceiverContract() public {
        address sink = address(new NotAReceiver());
        vm.expectRevert(abi.encodeWithSelector(IERC1155Errors.ERC1155InvalidReceiver.selector, sink));
        vm.prank(admin);
        token.mint(sink, 1, 1, "");
    }

    function test_MintToReceiverContract() public {
        address holder = address(new Holder());
        vm.prank(admin);
        token.mint(holder, 1, 2, "");
        assertEq(token.balanceOf(holder, 1), 2);
    }

    function test_RevertWhen_MintPastMaxSupply() public {
        vm.startPrank(admin);
        token.setMaxSupply(5, 10);
        token.mint(alice, 5, 10, "");
        vm.expectRevert(abi.encodeWithSelector(CardToken.MaxSupplyExceeded.selector, 5, 11, 10));
        token.mint(alice, 5, 1, "");
        vm.stopPrank();
    }

    function test_RevertWhen_MaxSupplySetTwice() public {
        vm.startPrank(admin);
        token.setMaxSupply(5, 10);
        vm.expectRevert(abi.encodeWithSelector(CardToken.MaxSupplyAlreadySet.selector, 5, 10));
        token.setMaxSupply(5, 20);
        vm.stopPrank();
    }

    function test_RevertWhen_MaxSupplyBelowSupply() public {
        vm.startPrank(admin);
        token.mint(alice, 5, 4, "");
        vm.expectRevert(abi.encodeWithSelector(CardToken.InvalidMaxSupply.selector, 5, 3, 4));
        token.setMaxSupply(5, 3);
        vm.stopPrank();
    }

    function test_SetURIEmits() public {
        vm.expectEmit();
        emit CardToken.BaseURIChanged("ipfs://x/{id}");
        vm.prank(admin);
        token.setURI("ipfs://x/{id}");
        assertEq(token.uri(1), "ipfs://x/{id}");
    }

    function test_SupportsInterfaces() public view {
        assertTrue(token.supportsInterface(0xd9b67a26)); // ERC-1155
        assertTrue(token.supportsInterface(0x0e89341c)); // ERC-1155 metadata URI
        assertTrue(token.supportsInterface(0x7965db0b)); // AccessControl
        assertTrue(token.supportsInterface(0x01ffc9a7)); // ERC-165
        assertFalse(token.supportsInterface(0xffffffff));
    }

    function testFuzz_MintBatchRespectsCaps(uint96 cap, uint96 first, uint96 second) public {
        vm.assume(cap > 0);
        vm.startPrank(admin);
        token.setMaxSupply(9, cap);
        uint256[] memory ids = new uint256[](2);
        ids[0] = 9;
        ids[1] = 10;
        uint256[] memory amounts = new uint256[](2);
        amounts[0] = first;
        amounts[1] = second;
        if (uint256(first) > cap) {
            vm.expectRevert(abi.encodeWithSelector(CardToken.MaxSupplyExceeded.selector, 9, uint256(first), uint256(cap)));
        }
        token.mintBatch(alice, ids, amounts, "");
        vm.stopPrank();
        assertTrue(token.totalSupply(9) <= cap);
    }

    function testFuzz_TransfersConserveSupply(uint64 minted, uint64 moved) public {
        moved = uint64(bound(moved, 0, minted));
        vm.prank(admin);
        token.mint(alice, 3, minted, "");
        vm.prank(alice);
        token.safeTransferFrom(alice, bob, 3, moved, "");
        assertEq(token.balanceOf(alice, 3) + token.balanceOf(bob, 3), minted);
        assertEq(token.totalSupply(3), minted);
    }
}
