// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {MatchLedger} from "../src/MatchLedger.sol";
import {IMatchLedger} from "../src/interfaces/IMatchLedger.sol";
import {ERC1271WalletMock} from "./mocks/ERC1271WalletMock.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IAccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/IAccessControlDefaultAdminRules.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

contract MatchLedgerTest is Test {
    MatchLedger ledger;
    address admin = address(0xA11CE);
    address anchorer = address(0xA2);
    uint256 signerKey = 0x51;
    address signer;
    uint48 constant DELAY = 3 days;

    function setUp() public {
        ledger = new MatchLedger(admin, DELAY);
        signer = vm.addr(signerKey);
        vm.startPrank(admin);
        ledger.grantRole(ledger.ANCHORER_ROLE(), anchorer);
        ledger.addSigner(signer);
        vm.stopPrank();
    }

    function _result() internal pure returns (IMatchLedger.MatchResult memory r) {
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

    /// @dev Anchor batches 1..n (root i, count 1) from block `firstBlock` on, one block apart.
    function _anchorBatches(uint64 n, uint256 firstBlock) internal returns (bytes32 head) {
        vm.startPrank(anchorer);
        for (uint64 i = 1; i <= n; ++i) {
            vm.roll(firstBlock + i - 1);
            bytes32 root = keccak256(abi.encode(i));
            ledger.anchor(i, root, 1, head);
            head = keccak256(abi.encode(head, i, root, uint32(1)));
        }
        vm.stopPrank();
    }

    function test_AnchorChainsBatches() public {
        bytes32 h1 = keccak256(abi.encode(bytes32(0), uint64(1), bytes32(uint256(1)), uint32(5)));
        vm.expectEmit();
        emit IMatchLedger.BatchAnchored(1, bytes32(uint256(1)), 5, bytes32(0), h1);
        vm.prank(anchorer);
        ledger.anchor(1, bytes32(uint256(1)), 5, bytes32(0));
        assertEq(ledger.headBatchHash(), h1);
        vm.prank(anchorer);
        ledger.anchor(2, bytes32(uint256(2)), 7, h1);
        assertEq(ledger.headBatchHash(), keccak256(abi.encode(h1, uint64(2), bytes32(uint256(2)), uint32(7))));
        assertEq(ledger.latestBatchId(), 2);
        assertEq(ledger.batchRoot(2), bytes32(uint256(2)));
    }

    function test_BatchAnchorBlockRecordsEachBatch() public {
        _anchorBatches(14, 1000); // batch i in block 999 + i: slots of six, the third one started
        for (uint64 i = 1; i <= 14; ++i) {
            assertEq(ledger.batchAnchorBlock(i), 999 + i);
        }
        assertEq(ledger.batchAnchorBlock(0), 0);
        assertEq(ledger.batchAnchorBlock(15), 0);
        assertEq(ledger.batchAnchorBlock(type(uint64).max), 0);
    }

    function testFuzz_AnchorBlocksAcrossSlots(uint8 n, uint40 start, uint16 gap) public {
        n = uint8(bound(n, 1, 40));
        gap = uint16(bound(gap, 1, type(uint16).max));
        uint256 first = bound(start, 1, type(uint40).max - uint256(n) * gap);
        bytes32 head;
        vm.startPrank(anchorer);
        for (uint64 i = 1; i <= n; ++i) {
            vm.roll(first + (i - 1) * gap);
            bytes32 root = keccak256(abi.encode(i, start));
            ledger.anchor(i, root, 1, head);
            head = keccak256(abi.encode(head, i, root, uint32(1)));
        }
        vm.stopPrank();
        for (uint64 i = 1; i <= n; ++i) {
            assertEq(ledger.batchAnchorBlock(i), first + (i - 1) * gap);
        }
        assertEq(ledger.batchAnchorBlock(uint64(n) + 1), 0);
        assertEq(ledger.latestBatchId(), n);
    }

    function test_RevertWhen_BlockNumberBeyond40Bits() public {
        vm.roll(uint256(type(uint40).max) + 1);
        vm.expectRevert(
            abi.encodeWithSelector(SafeCast.SafeCastOverflowedUintDowncast.selector, 40, uint256(type(uint40).max) + 1)
        );
        vm.prank(anchorer);
        ledger.anchor(1, bytes32(uint256(1)), 1, bytes32(0));
    }

    function test_RevertWhen_ReanchoringBatch() public {
        _anchorBatches(7, 10); // 6 fills slot 0; 7 opens slot 1
        bytes32 head = ledger.headBatchHash();
        vm.startPrank(anchorer);
        for (uint64 i = 1; i <= 7; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerBatchAlreadyAnchored.selector, i));
            ledger.anchor(i, bytes32(uint256(9)), 1, head);
        }
        vm.stopPrank();
    }

    function test_RevertWhen_BatchOutOfOrder() public {
        vm.startPrank(anchorer);
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerBatchOutOfOrder.selector, uint64(2)));
        ledger.anchor(2, bytes32(uint256(1)), 1, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerBatchOutOfOrder.selector, uint64(0)));
        ledger.anchor(0, bytes32(uint256(1)), 1, bytes32(0));
        vm.stopPrank();
        bytes32 head = _anchorBatches(6, 10);
        vm.startPrank(anchorer);
        // 8 would open slot 1 after a missing 7; 9 would skip into the middle of slot 1
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerBatchOutOfOrder.selector, uint64(8)));
        ledger.anchor(8, bytes32(uint256(1)), 1, head);
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerBatchOutOfOrder.selector, uint64(13)));
        ledger.anchor(13, bytes32(uint256(1)), 1, head);
        ledger.anchor(7, bytes32(uint256(1)), 1, head);
        vm.stopPrank();
    }

    function test_RevertWhen_EmptyBatch() public {
        vm.startPrank(anchorer);
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerEmptyBatch.selector, uint64(1)));
        ledger.anchor(1, bytes32(0), 1, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerEmptyBatch.selector, uint64(1)));
        ledger.anchor(1, bytes32(uint256(1)), 0, bytes32(0));
        vm.stopPrank();
    }

    function test_RevertWhen_PrevHashWrong() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IMatchLedger.MatchLedgerPrevBatchHashMismatch.selector, bytes32(0), bytes32(uint256(3))
            )
        );
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

    function test_IsValidResult() public view {
        IMatchLedger.MatchResult memory r = _result();
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
        vm.expectEmit();
        emit IMatchLedger.SignerAdded(other, admin);
        vm.prank(admin);
        ledger.addSigner(other);
        vm.roll(200);
        vm.expectEmit();
        emit IMatchLedger.SignerRemoved(other, admin);
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
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerSignerAlreadyAuthorised.selector, signer));
        ledger.addSigner(signer);
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerSignerNotAuthorised.selector, address(0x99)));
        ledger.removeSigner(address(0x99));
        vm.expectRevert(abi.encodeWithSelector(IMatchLedger.MatchLedgerInvalidSigner.selector, address(0)));
        ledger.addSigner(address(0));
        vm.stopPrank();
    }

    function test_AdminHandoverIsTwoStepAndDelayed() public {
        address next = address(0xB0B);
        vm.expectEmit();
        emit IAccessControlDefaultAdminRules.DefaultAdminTransferScheduled(next, uint48(block.timestamp + DELAY));
        vm.prank(admin);
        ledger.beginDefaultAdminTransfer(next);
        (, uint48 schedule) = ledger.pendingDefaultAdmin();
        // too early, and only the pending admin may accept
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControlDefaultAdminRules.AccessControlEnforcedDefaultAdminDelay.selector, schedule
            )
        );
        vm.prank(next);
        ledger.acceptDefaultAdminTransfer();
        vm.warp(uint256(schedule) + 1);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControlDefaultAdminRules.AccessControlInvalidDefaultAdmin.selector, anchorer)
        );
        vm.prank(anchorer);
        ledger.acceptDefaultAdminTransfer();
        // until accepted, the old admin still manages signers
        vm.prank(admin);
        ledger.addSigner(address(0x78));
        vm.prank(next);
        ledger.acceptDefaultAdminTransfer();
        assertEq(ledger.defaultAdmin(), next);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, admin, bytes32(0))
        );
        vm.prank(admin);
        ledger.addSigner(address(0x79));
        vm.prank(next);
        ledger.addSigner(address(0x79));
        assertTrue(ledger.isSigner(address(0x79)));
    }

    function test_AdminHandoverCanBeCancelled() public {
        vm.startPrank(admin);
        ledger.beginDefaultAdminTransfer(address(0xB0B));
        vm.expectEmit();
        emit IAccessControlDefaultAdminRules.DefaultAdminTransferCanceled();
        ledger.cancelDefaultAdminTransfer();
        vm.stopPrank();
        (address pending, uint48 schedule) = ledger.pendingDefaultAdmin();
        assertEq(pending, address(0));
        assertEq(schedule, 0);
    }

    function test_AdminDelayChangeWaits() public {
        uint48 longer = 10 days;
        vm.prank(admin);
        ledger.changeDefaultAdminDelay(longer);
        (uint48 newDelay, uint48 effect) = ledger.pendingDefaultAdminDelay();
        assertEq(newDelay, longer);
        // an increase waits min(newDelay, defaultAdminDelayIncreaseWait()) = 5 days
        assertEq(effect, block.timestamp + ledger.defaultAdminDelayIncreaseWait());
        assertEq(ledger.defaultAdminDelay(), DELAY);
        vm.warp(uint256(effect) + 1);
        assertEq(ledger.defaultAdminDelay(), longer);
    }

    function test_RevertWhen_AdminRoleGrantedOrRevokedDirectly() public {
        vm.startPrank(admin);
        vm.expectRevert(IAccessControlDefaultAdminRules.AccessControlEnforcedDefaultAdminRules.selector);
        ledger.grantRole(bytes32(0), address(0xB0B));
        vm.expectRevert(IAccessControlDefaultAdminRules.AccessControlEnforcedDefaultAdminRules.selector);
        ledger.revokeRole(bytes32(0), admin);
        vm.stopPrank();
    }

    function testFuzz_LatestBatchId(uint8 n) public {
        bytes32 head = n == 0 ? bytes32(0) : _anchorBatches(n, 1);
        assertEq(ledger.latestBatchId(), n);
        assertEq(ledger.headBatchHash(), head);
    }

    function testFuzz_TamperedResultNeverValid(bytes32 tamper) public view {
        IMatchLedger.MatchResult memory r = _result();
        bytes memory s = sig(signerKey, ledger.resultDigest(r));
        vm.assume(tamper != r.transcriptHash);
        r.transcriptHash = tamper;
        assertFalse(ledger.isValidResult(r, s));
    }
}
