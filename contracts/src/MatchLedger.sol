// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Checkpoints} from "@openzeppelin/contracts/utils/structs/Checkpoints.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// @title MatchLedger
/// @notice Anchors Merkle roots of signed match results in a hash chain of batches, and keeps the
/// registry of authorised result signers (with history, so auditors can ask "authorised at block N").
/// @dev Gas design: one fresh storage slot per batch (its root) plus one overwritten slot (the
/// chain head hash). Batch ids are contiguous from 1, so "is `id` the next batch" is checked by
/// reading the predecessor's root. Count, block and timestamp live in the {BatchAnchored} event
/// (its log's block) and the count is bound by the batch hash chain. See contracts/SECURITY.md.
contract MatchLedger is AccessControl, EIP712 {
    using Checkpoints for Checkpoints.Trace208;

    bytes32 public constant ANCHORER_ROLE = keccak256("ANCHORER_ROLE");

    /// @notice EIP-712 type of a signed match result (see DEVELOPERS.md).
    bytes32 public constant MATCH_RESULT_TYPEHASH = keccak256(
        "MatchResult(bytes32 matchId,string game,string rulesetVersion,address player0,address player1,"
        "bytes32 deck0,bytes32 deck1,bytes32 seedCommitments,bytes32 transcriptHash,bytes32 finalStateHash,"
        "address winner,uint64 ownershipBlock)"
    );

    /// @notice A signed match result (EIP-712 struct `MatchResult`).
    struct MatchResult {
        bytes32 matchId;
        string game;
        string rulesetVersion;
        address player0;
        address player1;
        bytes32 deck0;
        bytes32 deck1;
        bytes32 seedCommitments;
        bytes32 transcriptHash;
        bytes32 finalStateHash;
        address winner;
        uint64 ownershipBlock;
    }

    /// @dev The chain head is stored XOR-masked so that the zero genesis head is a non-zero slot from
    /// deployment on: every anchor, the first included, then overwrites a non-zero slot (2,900 gas
    /// instead of 20,000), keeping each batch under the 60k gas bar.
    bytes32 private constant _HEAD_MASK = keccak256("MetaLedger.headBatchHash.mask");

    mapping(uint64 batchId => bytes32 root) private _roots;
    bytes32 private _maskedHead;
    mapping(address signer => Checkpoints.Trace208) private _signerHistory;

    /// @notice Batch `batchId` was anchored. `batchHash = keccak256(abi.encode(prevBatchHash, batchId, root, count))`;
    /// the log's block number and timestamp are the batch's anchoring block and time.
    event BatchAnchored(
        uint64 indexed batchId, bytes32 indexed root, uint32 count, bytes32 prevBatchHash, bytes32 batchHash
    );
    /// @notice `signer` was authorised to sign results by `admin`.
    event SignerAdded(address indexed signer, address indexed admin);
    /// @notice `signer` was de-authorised by `admin`.
    event SignerRemoved(address indexed signer, address indexed admin);

    /// @notice Batch `batchId` already has a root; batches can't be re-anchored.
    error BatchAlreadyAnchored(uint64 batchId);
    /// @notice `batchId` is not the next batch id (ids start at 1 and increase by one).
    error BatchOutOfOrder(uint64 batchId);
    /// @notice `prevBatchHash` doesn't match the current chain head `expected`.
    error PrevBatchHashMismatch(bytes32 expected, bytes32 given);
    /// @notice A batch needs a non-zero root and at least one result.
    error EmptyBatch(uint64 batchId);
    /// @notice `signer` is already authorised.
    error SignerAlreadyAuthorised(address signer);
    /// @notice `signer` is not authorised.
    error SignerNotAuthorised(address signer);
    /// @notice The zero address can't be a signer.
    error InvalidSigner(address signer);

    /// @param admin account receiving DEFAULT_ADMIN_ROLE (manages signers and anchorers)
    constructor(address admin) EIP712("MetaLedger", "1") {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _maskedHead = _HEAD_MASK; // head = 0
    }

    // ------------------------------------------------------------------ anchoring

    /// @notice Anchor the Merkle root of batch `batchId` holding `count` results, chained to `prevBatchHash`
    /// (the current head; zero for batch 1). Reverts {BatchAlreadyAnchored} if the id exists.
    function anchor(uint64 batchId, bytes32 root, uint32 count, bytes32 prevBatchHash)
        external
        onlyRole(ANCHORER_ROLE)
    {
        if (_roots[batchId] != 0) revert BatchAlreadyAnchored(batchId);
        if (root == 0 || count == 0) revert EmptyBatch(batchId);
        // contiguous ids: batch 1 first, then only the successor of an anchored batch
        if (batchId == 0 || (batchId != 1 && _roots[batchId - 1] == 0)) revert BatchOutOfOrder(batchId);
        bytes32 head = _maskedHead ^ _HEAD_MASK;
        if (prevBatchHash != head) revert PrevBatchHashMismatch(head, prevBatchHash);
        bytes32 batchHash = keccak256(abi.encode(prevBatchHash, batchId, root, count));
        _roots[batchId] = root;
        _maskedHead = batchHash ^ _HEAD_MASK;
        emit BatchAnchored(batchId, root, count, prevBatchHash, batchHash);
    }

    /// @notice Whether `digest` (a result's EIP-712 digest) is in batch `batchId`, using the
    /// StandardMerkleTree leaf `keccak256(bytes.concat(keccak256(abi.encode(digest))))`.
    function verifyResult(uint64 batchId, bytes32 digest, bytes32[] calldata proof) external view returns (bool) {
        bytes32 root = _roots[batchId];
        if (root == 0) return false;
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(digest))));
        return MerkleProof.verifyCalldata(proof, root, leaf);
    }

    /// @notice The root of batch `batchId` (zero if not anchored).
    function batchRoot(uint64 batchId) external view returns (bytes32) {
        return _roots[batchId];
    }

    /// @notice The hash of the latest batch (the chain head; zero before batch 1).
    function headBatchHash() external view returns (bytes32) {
        return _maskedHead ^ _HEAD_MASK;
    }

    /// @notice The id of the latest anchored batch (0 if none). A view-only search over the
    /// contiguous ids, O(log n) storage reads.
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

    /// @notice Authorise `signer` to sign match results (admin only). Emits {SignerAdded}.
    function addSigner(address signer) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (signer == address(0)) revert InvalidSigner(signer);
        if (_signerHistory[signer].latest() != 0) revert SignerAlreadyAuthorised(signer);
        // slither-disable-next-line unused-return (push returns the old and new values; see SECURITY.md)
        _signerHistory[signer].push(SafeCast.toUint48(block.number), 1);
        emit SignerAdded(signer, _msgSender());
    }

    /// @notice De-authorise `signer` (admin only). Emits {SignerRemoved}.
    function removeSigner(address signer) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (_signerHistory[signer].latest() == 0) revert SignerNotAuthorised(signer);
        // slither-disable-next-line unused-return (push returns the old and new values; see SECURITY.md)
        _signerHistory[signer].push(SafeCast.toUint48(block.number), 0);
        emit SignerRemoved(signer, _msgSender());
    }

    /// @notice Whether `signer` is authorised now.
    function isSigner(address signer) public view returns (bool) {
        return _signerHistory[signer].latest() != 0;
    }

    /// @notice Whether `signer` was authorised at the end of block `blockNumber`.
    function wasSignerAt(address signer, uint48 blockNumber) external view returns (bool) {
        return _signerHistory[signer].upperLookupRecent(blockNumber) != 0;
    }

    // ------------------------------------------------------------------ results

    /// @notice The EIP-712 digest of `result` under this contract's domain.
    function resultDigest(MatchResult calldata result) public view returns (bytes32) {
        return _hashTypedDataV4(_hashResult(result));
    }

    /// @notice Whether `signature` is an ECDSA signature of `result` by a currently authorised signer.
    function isValidResult(MatchResult calldata result, bytes calldata signature) external view returns (bool) {
        // slither-disable-next-line unused-return (the error argument is not needed; see SECURITY.md)
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(resultDigest(result), signature);
        return err == ECDSA.RecoverError.NoError && isSigner(recovered);
    }

    /// @notice Whether `signer` (an EOA, or an EIP-1271 contract wallet) is authorised and signed `result`.
    function isValidResultBy(MatchResult calldata result, address signer, bytes calldata signature)
        external
        view
        returns (bool)
    {
        return isSigner(signer)
            && SignatureChecker.isValidSignatureNowCalldata(signer, resultDigest(result), signature);
    }

    function _hashResult(MatchResult calldata r) internal pure returns (bytes32) {
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
