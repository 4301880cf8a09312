// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {MatchLedger} from "../src/MatchLedger.sol";
import {ERC1271WalletMock} from "../src/mocks/ERC1271WalletMock.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

contract MatchLedgerTest is Test {
    MatchLedger ledger;
    address admin = address(0xA11CE);
    address anchorer = address(0xA2);
    uint256 signerKey = 0x51;
    address signer;

    function setUp() public {
        ledger = new MatchLedger(admin);
        signer = vm.addr(signerKey);
        vm.startPrank(admin);
        ledger.grantRole(ledger.ANCHORER_ROLE(), anchorer);
        ledger.addSigner(signer);
        vm.stopPrank();
    }

    function _result() internal pure returns (MatchLedger.MatchResult memory r) {
        r.matchId = keccak256("match-1");
        r.game = "metax";
        r.rulesetVersion = "1.0";
        r.player0 = address(0x10);
        r.player1 = address(0x11);
        r.deck0 = keccak256("d0");
        r.deck1 = keccak256("d1");
        r.seedCommitments = keccak256("seeds");
        r.transcriptHash = keccak256("transcript");
        r.finalStateHash = sha256("state");
        r.winner = address(0x10);
        r.ownershipBlock = 12;
    }

    function _leaf(bytes32 digest) internal pure returns (bytes32) {
        return keccak256(bytes.concat(keccak256(abi.encode(digest))));
    }

    function _pair(bytes32 a, bytes32 b) internal pure returns (bytes32) {
        return a < b ? keccak256(abi.encode(a, b)) : keccak256(abi.encode(b, a));
    }

    function test_AnchorChainsBatches() public {
        bytes32 h1 = keccak256(abi.encode(bytes32(0), uint64(1), bytes32(uint256(1)), uint32(5)));
        vm.expectEmit();
        emit MatchLedger.BatchAnchored(1, bytes32(uint256(1)), 5, bytes32(0), h1);
        vm.prank(anchorer);
        ledger.anchor(1, bytes32(uint256(1)), 5, bytes32(0));
        assertEq(ledger.headBatchHash(), h1);
        vm.prank(anchorer);
        ledger.anchor(2, bytes32(uint256(2)), 7, h1);
        assertEq(ledger.headBatchHash(), keccak256(abi.encode(h1, uint64(2), bytes32(uint256(2)), uint32(7))));
        assertEq(ledger.latestBatchId(), 2);
        assertEq(ledger.batchRoot(2), bytes32(uint256(2)));
    }

    function test_RevertWhen_ReanchoringBatch() public {
        vm.startPrank(anchorer);
        ledger.anchor(1, bytes32(uint256(1)), 1, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.BatchAlreadyAnchored.selector, uint64(1)));
        ledger.anchor(1, bytes32(uint256(9)), 1, bytes32(0));
        vm.stopPrank();
    }

    function test_RevertWhen_BatchOutOfOrder() public {
        vm.startPrank(anchorer);
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.BatchOutOfOrder.selector, uint64(2)));
        ledger.anchor(2, bytes32(uint256(1)), 1, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.BatchOutOfOrder.selector, uint64(0)));
        ledger.anchor(0, bytes32(uint256(1)), 1, bytes32(0));
        vm.stopPrank();
    }

    function test_RevertWhen_PrevHashWrong() public {
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.PrevBatchHashMismatch.selector, bytes32(0), bytes32(uint256(3))));
        vm.prank(anchorer);
        ledger.anchor(1, bytes32(uint256(1)), 1, bytes32(uint256(3)));
    }

    function test_RevertWhen_NotAnchorer() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, admin, ledger.ANCHORER_ROLE())
        );
        vm.prank(admin);
        ledger.anchor(1, bytes32(uint256(1)), 1, bytes32(0));
    }

    function test_VerifyResultWithStandardLeaf() public {
        bytes32 d0 = keccak256("r0");
        bytes32 d1 = keccak256("r1");
        bytes32 root = _pair(_leaf(d0), _leaf(d1));
        vm.prank(anchorer);
        ledger.anchor(1, root, 2, bytes32(0));
        bytes32[] memory proof = new bytes32[](1);
        proof[0] = _leaf(d1);
        assertTrue(ledger.verifyResult(1, d0, proof));
        assertFalse(ledger.verifyResult(1, d1, proof));
        assertFalse(ledger.verifyResult(2, d0, proof));
    }

    function test_IsValidResult() public {
        MatchLedger.MatchResult memory r = _result();
        bytes memory s = sig(signerKey, ledger.resultDigest(r));
        assertTrue(ledger.isValidResult(r, s));
        assertTrue(ledger.isValidResultBy(r, signer, s));
        r.winner = address(0x11);
        assertFalse(ledger.isValidResult(r, s));
        assertFalse(ledger.isValidResult(_result(), sig(0x52, ledger.resultDigest(_result()))));
    }

    function test_IsValidResultByERC1271Signer() public {
        ERC1271WalletMock wallet = new ERC1271WalletMock(signer);
        vm.prank(admin);
        ledger.addSigner(address(wallet));
        bytes memory s = sig(signerKey, ledger.resultDigest(_result()));
        assertTrue(ledger.isValidResultBy(_result(), address(wallet), s));
        assertFalse(ledger.isValidResultBy(_result(), address(wallet), sig(0x52, ledger.resultDigest(_result()))));
    }

    function test_SignerHistory() public {
        address other = address(0x77);
        vm.roll(100);
        vm.prank(admin);
        ledger.addSigner(other);
        vm.roll(200);
        vm.prank(admin);
        ledger.removeSigner(other);
        vm.roll(300);
        assertFalse(ledger.wasSignerAt(other, 99));
        assertTrue(ledger.wasSignerAt(other, 100));
        assertTrue(ledger.wasSignerAt(other, 199));
        assertFalse(ledger.wasSignerAt(other, 200));
        assertFalse(ledger.isSigner(other));
    }

    function test_RevertWhen_SignerRegistryMisused() public {
        vm.startPrank(admin);
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.SignerAlreadyAuthorised.selector, signer));
        ledger.addSigner(signer);
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.SignerNotAuthorised.selector, address(0x99)));
        ledger.removeSigner(address(0x99));
        vm.expectRevert(abi.encodeWithSelector(MatchLedger.InvalidSigner.selector, address(0)));
        ledger.addSigner(address(0));
        vm.stopPrank();
    }

    function testFuzz_LatestBatchId(uint8 n) public {
        bytes32 head;
        vm.startPrank(anchorer);
        for (uint64 i = 1; i <= n; ++i) {
            bytes32 root = keccak256(abi.encode(i));
            ledger.anchor(i, root, 1, head);
            head = keccak256(abi.encode(head, i, root, uint32(1)));
        }
        vm.stopPrank();
        assertEq(ledger.latestBatchId(), n);
        assertEq(ledger.headBatchHash(), head);
    }

    function testFuzz_TamperedResultNeverValid(bytes32 tamper) public {
        MatchLedger.MatchResult memory r = _result();
        bytes memory s = sig(signerKey, ledger.resultDigest(r));
        vm.assume(tamper != r.transcriptHash);
        r.transcriptHash = tamper;
        assertFalse(ledger.isValidResult(r, s));
    }
}
