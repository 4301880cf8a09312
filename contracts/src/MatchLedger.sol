// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Checkpoints} from "@openzeppelin/contracts/utils/structs/Checkpoints.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {IMatchLedger} from "./interfaces/IMatchLedger.sol";

/// @title MatchLedger
/// @notice Anchors Merkle roots of signed match results in a hash chain of batches, records the block
/// each batch was anchored in, and keeps the registry of authorised result signers (with history, so
/// auditors can ask "authorised at block N").
/// @dev Gas design (contracts/SECURITY.md): one fresh storage slot per batch (its root), the chain
/// head overwritten in place, and the anchoring blocks packed six to a slot, which also answer "is
/// `id` the next batch". The count lives in the {BatchAnchored} event, bound by the batch hash chain.
/// One default admin (two-step handover with a delay) manages signers and anchorers.
contract MatchLedger is IMatchLedger, AccessControlDefaultAdminRules, EIP712 {
    using Checkpoints for Checkpoints.Trace208;

    /// @inheritdoc IMatchLedger
    bytes32 public constant ANCHORER_ROLE = keccak256("ANCHORER_ROLE");

    /// @inheritdoc IMatchLedger
    bytes32 public constant MATCH_RESULT_TYPEHASH = keccak256(
        "MatchResult(bytes32 matchId,string game,string rulesetVersion,address player0,address player1,"
        "bytes32 deck0,bytes32 deck1,bytes32 seedCommitments,bytes32 transcriptHash,bytes32 finalStateHash,"
        "address winner,uint64 ownershipBlock)"
    );

    /// @dev The chain head is stored XOR-masked so that the zero genesis head is a non-zero slot from
    /// deployment on: every anchor, the first included, then overwrites a non-zero slot.
    bytes32 private constant _HEAD_MASK = keccak256("MetaLedger.headBatchHash.mask");

    /// @dev Anchoring blocks, 40 bits each (blocks up to 2**40, ~1.1e12), six to a slot: batch `id`
    /// is entry `(id - 1) % 6` of slot `(id - 1) / 6`. Zero means "not anchored".
    uint256 private constant _BLOCKS_PER_SLOT = 6;
    uint256 private constant _BLOCK_BITS = 40;
    uint256 private constant _BLOCK_MASK = (1 << _BLOCK_BITS) - 1;

    mapping(uint64 batchId => bytes32 root) private _roots;
    bytes32 private _maskedHead;
    mapping(uint256 slot => uint256 packedBlocks) private _anchorBlocks;
    mapping(address signer => Checkpoints.Trace208) private _signerHistory;

    /// @param admin the default admin (manages signers and anchorers)
    /// @param adminDelay seconds a default admin handover (and a delay change) must wait
    constructor(address admin, uint48 adminDelay)
        AccessControlDefaultAdminRules(adminDelay, admin)
        EIP712("MetaLedger", "1")
    {
        _maskedHead = _HEAD_MASK; // head = 0
    }

    // ------------------------------------------------------------------ anchoring

    /// @inheritdoc IMatchLedger
    function anchor(uint64 batchId, bytes32 root, uint32 count, bytes32 prevBatchHash)
        external
        onlyRole(ANCHORER_ROLE)
    {
        if (batchId == 0) revert MatchLedgerBatchOutOfOrder(batchId);
        uint256 index = batchId - 1;
        uint256 slot = index / _BLOCKS_PER_SLOT;
        uint256 shift = (index % _BLOCKS_PER_SLOT) * _BLOCK_BITS;
        uint256 packed = _anchorBlocks[slot];
        if ((packed >> shift) & _BLOCK_MASK != 0) revert MatchLedgerBatchAlreadyAnchored(batchId);
        if (root == 0 || count == 0) revert MatchLedgerEmptyBatch(batchId);
        // contiguous ids: batch 1 first, then only the successor of an anchored batch
        // slither-disable-next-line incorrect-equality (0 is "not anchored", never a block; see SECURITY.md)
        if (batchId != 1 && _anchorBlockAt(shift == 0 ? _anchorBlocks[slot - 1] : packed, index - 1) == 0) {
            revert MatchLedgerBatchOutOfOrder(batchId);
        }
        bytes32 head = _maskedHead ^ _HEAD_MASK;
        if (prevBatchHash != head) revert MatchLedgerPrevBatchHashMismatch(head, prevBatchHash);
        bytes32 batchHash = keccak256(abi.encode(prevBatchHash, batchId, root, count));
        _roots[batchId] = root;
        _maskedHead = batchHash ^ _HEAD_MASK;
        _anchorBlocks[slot] = packed | (uint256(SafeCast.toUint40(block.number)) << shift);
        emit BatchAnchored(batchId, root, count, prevBatchHash, batchHash);
    }

    /// @inheritdoc IMatchLedger
    function verifyResult(uint64 batchId, bytes32 digest, bytes32[] calldata proof) external view returns (bool) {
        bytes32 root = _roots[batchId];
        if (root == 0) return false;
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(digest))));
        return MerkleProof.verifyCalldata(proof, root, leaf);
    }

    /// @inheritdoc IMatchLedger
    function batchRoot(uint64 batchId) external view returns (bytes32) {
        return _roots[batchId];
    }

    /// @inheritdoc IMatchLedger
    function batchAnchorBlock(uint64 batchId) external view returns (uint256) {
        if (batchId == 0) return 0;
        uint256 index = batchId - 1;
        return _anchorBlockAt(_anchorBlocks[index / _BLOCKS_PER_SLOT], index);
    }

    /// @inheritdoc IMatchLedger
    function headBatchHash() external view returns (bytes32) {
        return _maskedHead ^ _HEAD_MASK;
    }

    /// @inheritdoc IMatchLedger
    function latestBatchId() external view returns (uint64) {
        if (_roots[1] == 0) return 0;
        uint64 lo = 1; // anchored
        uint64 hi = 2; // probe upward until not anchored
        while (_roots[hi] != 0) {
            lo = hi;
            hi = hi * 2;
        }
        while (hi - lo > 1) {
            uint64 mid = lo + (hi - lo) / 2;
            if (_roots[mid] != 0) lo = mid;
            else hi = mid;
        }
        return lo;
    }

    // ------------------------------------------------------------------ signer registry

    /// @inheritdoc IMatchLedger
    function addSigner(address signer) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (signer == address(0)) revert MatchLedgerInvalidSigner(signer);
        if (_signerHistory[signer].latest() != 0) revert MatchLedgerSignerAlreadyAuthorised(signer);
        // slither-disable-next-line unused-return (push returns the old and new values; see SECURITY.md)
        _signerHistory[signer].push(SafeCast.toUint48(block.number), 1);
        emit SignerAdded(signer, _msgSender());
    }

    /// @inheritdoc IMatchLedger
    function removeSigner(address signer) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (_signerHistory[signer].latest() == 0) revert MatchLedgerSignerNotAuthorised(signer);
        // slither-disable-next-line unused-return (push returns the old and new values; see SECURITY.md)
        _signerHistory[signer].push(SafeCast.toUint48(block.number), 0);
        emit SignerRemoved(signer, _msgSender());
    }

    /// @inheritdoc IMatchLedger
    function isSigner(address signer) public view returns (bool) {
        return _signerHistory[signer].latest() != 0;
    }

    /// @inheritdoc IMatchLedger
    function wasSignerAt(address signer, uint48 blockNumber) external view returns (bool) {
        return _signerHistory[signer].upperLookupRecent(blockNumber) != 0;
    }

    // ------------------------------------------------------------------ results

    /// @inheritdoc IMatchLedger
    function resultDigest(MatchResult calldata result) public view returns (bytes32) {
        return _hashTypedDataV4(_hashResult(result));
    }

    /// @inheritdoc IMatchLedger
    function isValidResult(MatchResult calldata result, bytes calldata signature) external view returns (bool) {
        // slither-disable-next-line unused-return (the error argument is not needed; see SECURITY.md)
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(resultDigest(result), signature);
        return err == ECDSA.RecoverError.NoError && isSigner(recovered);
    }

    /// @inheritdoc IMatchLedger
    function isValidResultBy(MatchResult calldata result, address signer, bytes calldata signature)
        external
        view
        returns (bool)
    {
        return isSigner(signer)
            && SignatureChecker.isValidSignatureNowCalldata(signer, resultDigest(result), signature);
    }

    /// @dev The anchoring block of batch index `index` (batch id - 1) from its packed slot.
    function _anchorBlockAt(uint256 packed, uint256 index) private pure returns (uint256) {
        return (packed >> ((index % _BLOCKS_PER_SLOT) * _BLOCK_BITS)) & _BLOCK_MASK;
    }

    function _hashResult(MatchResult calldata r) private pure returns (bytes32) {
        bytes memory head = abi.encode(
            MATCH_RESULT_TYPEHASH,
            r.matchId,
            keccak256(bytes(r.game)),
            keccak256(bytes(r.rulesetVersion)),
            r.player0,
            r.player1,
            r.deck0
        );
        bytes memory tail = abi.encode(
            r.deck1, r.seedCommitments, r.transcriptHash, r.finalStateHash, r.winner, r.ownershipBlock
        );
        return keccak256(bytes.concat(head, tail));
    }
}
