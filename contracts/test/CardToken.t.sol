// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {CardToken} from "../src/CardToken.sol";
import {ICardToken} from "../src/interfaces/ICardToken.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IAccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/IAccessControlDefaultAdminRules.sol";
import {IERC1155Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";

contract NotAReceiver {}

contract Holder is ERC1155Holder {}

contract CardTokenTest is Test {
    CardToken token;
    address admin = address(0xA11CE);
    address alice = address(0xA1);
    address bob = address(0xB0B);
    uint48 constant DELAY = 2 days;

    function setUp() public {
        token = new CardToken("https://cards.example/{id}.json", admin, DELAY);
        vm.startPrank(admin);
        token.setMaxSupply(1, 100);
        token.setMaxSupply(7, 100);
        vm.stopPrank();
    }

    function _pair(uint256 a, uint256 b) internal pure returns (uint256[] memory pair) {
        pair = new uint256[](2);
        pair[0] = a;
        pair[1] = b;
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

    function test_RevertWhen_MintWithoutMaxSupply() public {
        vm.startPrank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenNoMaxSupply.selector, 5));
        token.mint(alice, 5, 1, "");
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenNoMaxSupply.selector, 5));
        token.mintBatch(alice, _pair(1, 5), _pair(1, 1), "");
        vm.stopPrank();
        assertEq(token.totalSupply(1), 0);
    }

    function test_RevertWhen_MintWithoutMinterRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, token.MINTER_ROLE())
        );
        vm.prank(alice);
        token.mint(alice, 1, 1, "");
    }

    function test_RevertWhen_MinterSetsMaxSupply() public {
        bytes32 minter = token.MINTER_ROLE();
        vm.prank(admin);
        token.grantRole(minter, bob);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, bob, bytes32(0))
        );
        vm.prank(bob);
        token.setMaxSupply(5, 10);
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
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenMaxSupplyExceeded.selector, 5, 11, 10));
        token.mint(alice, 5, 1, "");
        vm.stopPrank();
    }

    function test_SetMaxSupplyEmits() public {
        vm.expectEmit();
        emit ICardToken.MaxSupplySet(5, 10);
        vm.prank(admin);
        token.setMaxSupply(5, 10);
        assertEq(token.maxSupply(5), 10);
        assertEq(token.maxSupply(6), 0);
    }

    function test_RevertWhen_MaxSupplySetTwice() public {
        vm.startPrank(admin);
        token.setMaxSupply(5, 10);
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenMaxSupplyAlreadySet.selector, 5, 10));
        token.setMaxSupply(5, 20);
        vm.stopPrank();
    }

    function test_RevertWhen_MaxSupplyZero() public {
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenInvalidMaxSupply.selector, 5, 0));
        vm.prank(admin);
        token.setMaxSupply(5, 0);
    }

    function test_SetMaxSupplyBatch() public {
        vm.expectEmit();
        emit ICardToken.MaxSupplySet(20, 3);
        vm.expectEmit();
        emit ICardToken.MaxSupplySet(21, 4);
        vm.prank(admin);
        token.setMaxSupplyBatch(_pair(20, 21), _pair(3, 4));
        assertEq(token.maxSupply(20), 3);
        assertEq(token.maxSupply(21), 4);
    }

    function test_RevertWhen_SetMaxSupplyBatchIsInvalid() public {
        vm.startPrank(admin);
        uint256[] memory one = new uint256[](1);
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenInvalidArrayLength.selector, 2, 1));
        token.setMaxSupplyBatch(_pair(20, 21), one);
        // an id listed twice is set by its first entry; the second is refused, and nothing is kept
        vm.expectRevert(abi.encodeWithSelector(ICardToken.CardTokenMaxSupplyAlreadySet.selector, 20, 3));
        token.setMaxSupplyBatch(_pair(20, 20), _pair(3, 4));
        vm.stopPrank();
        assertEq(token.maxSupply(20), 0);
    }

    function test_SetURIEmits() public {
        vm.expectEmit();
        emit ICardToken.BaseURIChanged("ipfs://x/{id}");
        vm.prank(admin);
        token.setURI("ipfs://x/{id}");
        assertEq(token.uri(1), "ipfs://x/{id}");
    }

    function test_SupportsInterfaces() public view {
        assertTrue(token.supportsInterface(0xd9b67a26)); // ERC-1155
        assertTrue(token.supportsInterface(0x0e89341c)); // ERC-1155 metadata URI
        assertTrue(token.supportsInterface(0x7965db0b)); // AccessControl
        assertTrue(token.supportsInterface(type(IAccessControlDefaultAdminRules).interfaceId));
        assertTrue(token.supportsInterface(0x01ffc9a7)); // ERC-165
        assertFalse(token.supportsInterface(0xffffffff));
    }

    function test_AdminHandoverWaitsForTheDelay() public {
        assertEq(token.defaultAdmin(), admin);
        assertEq(token.owner(), admin);
        assertEq(token.defaultAdminDelay(), DELAY);
        vm.prank(admin);
        token.beginDefaultAdminTransfer(bob);
        (address pending, uint48 schedule) = token.pendingDefaultAdmin();
        assertEq(pending, bob);
        assertEq(schedule, block.timestamp + DELAY);
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControlDefaultAdminRules.AccessControlEnforcedDefaultAdminDelay.selector, schedule
            )
        );
        vm.prank(bob);
        token.acceptDefaultAdminTransfer();
        vm.warp(uint256(schedule) + 1);
        vm.prank(bob);
        token.acceptDefaultAdminTransfer();
        assertEq(token.defaultAdmin(), bob);
        assertTrue(token.hasRole(bytes32(0), bob));
        assertFalse(token.hasRole(bytes32(0), admin));
        // the old admin keeps the roles it was granted besides the admin role, until revoked
        assertTrue(token.hasRole(token.MINTER_ROLE(), admin));
    }

    function test_RevertWhen_AdminRoleGrantedDirectly() public {
        vm.expectRevert(IAccessControlDefaultAdminRules.AccessControlEnforcedDefaultAdminRules.selector);
        vm.prank(admin);
        token.grantRole(bytes32(0), bob);
    }

    function testFuzz_MintBatchRespectsCaps(uint96 cap, uint96 first, uint96 second) public {
        vm.assume(cap > 0);
        vm.startPrank(admin);
        token.setMaxSupply(9, cap);
        token.setMaxSupply(10, type(uint256).max);
        if (uint256(first) > cap) {
            vm.expectRevert(
                abi.encodeWithSelector(ICardToken.CardTokenMaxSupplyExceeded.selector, 9, uint256(first), uint256(cap))
            );
        }
        token.mintBatch(alice, _pair(9, 10), _pair(first, second), "");
        vm.stopPrank();
        assertTrue(token.totalSupply(9) <= cap);
    }

    function testFuzz_TransfersConserveSupply(uint64 minted, uint64 moved) public {
        vm.prank(admin);
        token.setMaxSupply(3, type(uint64).max);
        moved = uint64(bound(moved, 0, minted));
        vm.prank(admin);
        token.mint(alice, 3, minted, "");
        vm.prank(alice);
        token.safeTransferFrom(alice, bob, 3, moved, "");
        assertEq(token.balanceOf(alice, 3) + token.balanceOf(bob, 3), minted);
        assertEq(token.totalSupply(3), minted);
    }
}
