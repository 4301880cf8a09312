// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IMatchLedger
/// @notice Anchored Merkle roots of signed match results, chained batch by batch, and the registry
/// of authorised result signers with its history.
/// @dev The views an offline verifier uses (`batchRoot`, `verifyResult`, `headBatchHash`,
/// `latestBatchId`, `wasSignerAt`, ERC-5267 `eip712Domain`) and the {BatchAnchored} layout are
/// the same as in the first release, so bundles anchored on it keep verifying.
interface IMatchLedger {
    /// @notice A signed match result (EIP-712 struct `MatchResult`, see DEVELOPERS.md).
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

    /// @notice Batch `batchId` was anchored; the log's block is {batchAnchorBlock}(`batchId`).
    /// @param batchId the batch id (1, 2, 3, ...)
    /// @param root the Merkle root of the batch's result digests
    /// @param count the number of results in the batch
    /// @param prevBatchHash the hash of the previous batch (zero for batch 1)
    /// @param batchHash `keccak256(abi.encode(prevBatchHash, batchId, root, count))`
    event BatchAnchored(
        uint64 indexed batchId, bytes32 indexed root, uint32 count, bytes32 prevBatchHash, bytes32 batchHash
    );

    /// @notice `signer` was authorised to sign results by `admin`.
    /// @param signer the new result signer
    /// @param admin the admin who added it
    event SignerAdded(address indexed signer, address indexed admin);

    /// @notice `signer` was de-authorised by `admin`.
    /// @param signer the removed result signer
    /// @param admin the admin who removed it
    event SignerRemoved(address indexed signer, address indexed admin);

    /// @notice Batch `batchId` already has a root; batches can't be re-anchored.
    /// @param batchId the batch id
    error MatchLedgerBatchAlreadyAnchored(uint64 batchId);

    /// @notice `batchId` is not the next batch id (ids start at 1 and increase by one).
    /// @param batchId the refused id
    error MatchLedgerBatchOutOfOrder(uint64 batchId);

    /// @notice `given` is not the current chain head `expected`.
    /// @param expected the hash of the latest batch
    /// @param given the prevBatchHash the anchorer sent
    error MatchLedgerPrevBatchHashMismatch(bytes32 expected, bytes32 given);

    /// @notice A batch needs a non-zero root and at least one result.
    /// @param batchId the refused batch
    error MatchLedgerEmptyBatch(uint64 batchId);

    /// @notice `signer` is already authorised.
    /// @param signer the signer
    error MatchLedgerSignerAlreadyAuthorised(address signer);

    /// @notice `signer` is not authorised.
    /// @param signer the signer
    error MatchLedgerSignerNotAuthorised(address signer);

    /// @notice The zero address can't be a signer.
    /// @param signer the refused address
    error MatchLedgerInvalidSigner(address signer);

    /// @notice The role that may anchor batches.
    /// @return role keccak256("ANCHORER_ROLE")
    function ANCHORER_ROLE() external view returns (bytes32 role);

    /// @notice The EIP-712 type hash of {MatchResult}.
    /// @return typeHash keccak256 of the type string in DEVELOPERS.md
    function MATCH_RESULT_TYPEHASH() external view returns (bytes32 typeHash);

    /// @notice Anchor the Merkle root of batch `batchId` (anchorer only). Emits {BatchAnchored}.
    /// @param batchId the next batch id: 1, then the latest id plus one
    /// @param root the Merkle root (StandardMerkleTree, leaf encoding ["bytes32"])
    /// @param count the number of results in the batch (at least 1)
    /// @param prevBatchHash the current {headBatchHash} (zero for batch 1)
    function anchor(uint64 batchId, bytes32 root, uint32 count, bytes32 prevBatchHash) external;

    /// @notice Whether `digest` (a result's EIP-712 digest) is in batch `batchId`.
    /// @param batchId the batch
    /// @param digest the result's digest; the leaf is `keccak256(bytes.concat(keccak256(abi.encode(digest))))`
    /// @param proof the sibling hashes from the leaf up to the root
    /// @return included true if the proof leads to the batch's root (false for an unanchored batch)
    function verifyResult(uint64 batchId, bytes32 digest, bytes32[] calldata proof)
        external
        view
        returns (bool included);

    /// @notice The root of batch `batchId`.
    /// @param batchId the batch
    /// @return root its Merkle root (zero if not anchored)
    function batchRoot(uint64 batchId) external view returns (bytes32 root);

    /// @notice The block in which batch `batchId` was anchored: its {BatchAnchored} log is in that
    /// block, so a client finds it with one `eth_getLogs` over that single block.
    /// @param batchId the batch
    /// @return blockNumber the anchoring block (zero if not anchored)
    function batchAnchorBlock(uint64 batchId) external view returns (uint256 blockNumber);

    /// @notice The hash of the latest batch (the head of the batch hash chain).
    /// @return head the latest batchHash (zero before batch 1)
    function headBatchHash() external view returns (bytes32 head);

    /// @notice The id of the latest anchored batch (a view-only search, O(log n) storage reads).
    /// @return batchId the latest id (0 if none)
    function latestBatchId() external view returns (uint64 batchId);

    /// @notice Authorise `signer` to sign match results (admin only). Emits {SignerAdded}.
    /// @param signer an EOA or an EIP-1271 contract wallet
    function addSigner(address signer) external;

    /// @notice De-authorise `signer` (admin only). Emits {SignerRemoved}.
    /// @param signer a currently authorised signer
    function removeSigner(address signer) external;

    /// @notice Whether `signer` is authorised now.
    /// @param signer the address
    /// @return authorised true if it may sign results now
    function isSigner(address signer) external view returns (bool authorised);

    /// @notice Whether `signer` was authorised at the end of block `blockNumber`.
    /// @param signer the address
    /// @param blockNumber the block
    /// @return authorised true if it was a signer after that block's transactions
    function wasSignerAt(address signer, uint48 blockNumber) external view returns (bool authorised);

    /// @notice The EIP-712 digest of `result` under this contract's domain.
    /// @param result the result
    /// @return digest what the operator signs
    function resultDigest(MatchResult calldata result) external view returns (bytes32 digest);

    /// @notice Whether `signature` is an ECDSA signature of `result` by a currently authorised signer.
    /// @param result the result
    /// @param signature a 65-byte ECDSA signature
    /// @return valid true if it recovers to an authorised signer
    function isValidResult(MatchResult calldata result, bytes calldata signature) external view returns (bool valid);

    /// @notice Whether `signer` (an EOA or an EIP-1271 contract wallet) is authorised and signed `result`.
    /// @param result the result
    /// @param signer the claimed signer
    /// @param signature its signature (ECDSA, or whatever the wallet's `isValidSignature` accepts)
    /// @return valid true if `signer` is authorised and the signature is valid now
    function isValidResultBy(MatchResult calldata result, address signer, bytes calldata signature)
        external
        view
        returns (bool valid);
}
