// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";

/// @title ICardExchange
/// @notice Atomic swaps of cards between collectors: a maker signs an EIP-712 {Offer} off-chain and
/// a taker fills it on-chain, whole or not at all.
interface ICardExchange {
    /// @notice A maker's signed offer (EIP-712 struct `Offer`). `taker == address(0)` lets anyone fill it.
    struct Offer {
        address maker;
        address taker;
        uint256[] givenIds;
        uint256[] givenAmounts;
        uint256[] askedIds;
        uint256[] askedAmounts;
        uint256 askedWei;
        uint64 expiry;
        uint256 nonce;
    }

    /// @notice `taker` filled `maker`'s offer `offerHash` (its EIP-712 digest) with nonce `nonce`.
    /// @param offerHash the offer's EIP-712 digest
    /// @param maker the offer's maker
    /// @param taker who filled it
    /// @param nonce the maker's nonce it spent
    event OfferFilled(bytes32 indexed offerHash, address indexed maker, address indexed taker, uint256 nonce);

    /// @notice `maker` cancelled the offer with nonce `nonce`.
    /// @param maker the maker
    /// @param nonce the spent nonce
    event OfferCancelled(address indexed maker, uint256 nonce);

    /// @notice `maker` invalidated every offer with a nonce below `minNonce`.
    /// @param maker the maker
    /// @param minNonce the new minimum valid nonce
    event NoncesInvalidated(address indexed maker, uint256 minNonce);

    /// @notice The offer expired at `expiry` (unix seconds).
    /// @param expiry the offer's expiry
    error CardExchangeOfferExpired(uint64 expiry);

    /// @notice The offer names taker `taker`, not the caller.
    /// @param taker the named taker
    /// @param caller who tried to fill it
    error CardExchangeWrongTaker(address taker, address caller);

    /// @notice `maker`'s nonce `nonce` was already filled or cancelled.
    /// @param maker the maker
    /// @param nonce the spent nonce
    error CardExchangeNonceAlreadyUsed(address maker, uint256 nonce);

    /// @notice `maker` invalidated every nonce below `minNonce`.
    /// @param maker the maker
    /// @param nonce the refused nonce
    /// @param minNonce the maker's minimum valid nonce
    error CardExchangeNonceBelowMinimum(address maker, uint256 nonce, uint256 minNonce);

    /// @notice The signature is not `maker`'s signature of the offer (another signer, chain, contract or offer).
    /// @param maker the offer's maker
    error CardExchangeInvalidSignature(address maker);

    /// @notice The offer asks `expected` wei; `sent` was sent.
    /// @param expected the offer's askedWei
    /// @param sent msg.value
    error CardExchangeWrongPayment(uint256 expected, uint256 sent);

    /// @notice A new minimum nonce must be above the current one.
    /// @param current the maker's minimum nonce
    /// @param requested the refused new minimum
    error CardExchangeMinNonceNotIncreased(uint256 current, uint256 requested);

    /// @notice The card token given to the constructor has no code.
    /// @param token the refused address
    error CardExchangeInvalidCardToken(address token);

    /// @notice The EIP-712 type hash of {Offer}.
    /// @return typeHash keccak256 of the Offer type string
    function OFFER_TYPEHASH() external view returns (bytes32 typeHash);

    /// @notice The card token traded here.
    /// @return token the CardToken contract
    function cards() external view returns (IERC1155 token);

    /// @notice Fill `offer` as its taker: the maker's given cards go to the caller, the asked cards go
    /// from the caller to the maker, and `msg.value` (which must equal `askedWei`) goes to the maker.
    /// Both parties must have approved this contract as an ERC-1155 operator. Emits {OfferFilled}.
    /// @param offer the maker's offer
    /// @param signature the maker's EIP-712 signature of it (ECDSA, or EIP-1271 for a contract maker)
    function fill(Offer calldata offer, bytes calldata signature) external payable;

    /// @notice Cancel the caller's offer with nonce `nonce`. Emits {OfferCancelled}.
    /// @param nonce the caller's nonce to spend
    function cancel(uint256 nonce) external;

    /// @notice Invalidate every offer of the caller with a nonce below `minNonce`. Emits {NoncesInvalidated}.
    /// @param newMinNonce the new minimum valid nonce (above the current one)
    function invalidateNoncesBelow(uint256 newMinNonce) external;

    /// @notice Whether `maker`'s nonce `nonce` can no longer be filled.
    /// @param maker the maker
    /// @param nonce the nonce
    /// @return used true if filled, cancelled or below the maker's minimum
    function isNonceUsed(address maker, uint256 nonce) external view returns (bool used);

    /// @notice The minimum valid nonce of `maker`.
    /// @param maker the maker
    /// @return floor every nonce below it is invalid
    function minNonce(address maker) external view returns (uint256 floor);

    /// @notice The EIP-712 digest of `offer` under this contract's domain (what the maker signs).
    /// @param offer the offer
    /// @return digest the EIP-712 digest
    function offerDigest(Offer calldata offer) external view returns (bytes32 digest);
}
