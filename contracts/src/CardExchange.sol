// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";

/// @title CardExchange
/// @notice Atomic swaps of CardToken cards between collectors. A maker signs an EIP-712 {Offer}
/// (cards given; cards and/or ETH asked; an optional taker; an expiry; a nonce) and any allowed
/// taker fills it in one transaction: every transfer happens or none does.
/// @dev Nonces are unordered (a bitmap per maker): a nonce is spent by a fill or a cancel, and a
/// maker can also invalidate every nonce below a minimum. Both parties approve this contract as
/// an ERC-1155 operator. Makers may be EIP-1271 contract wallets.
contract CardExchange is EIP712, ReentrancyGuardTransient {
    /// @notice EIP-712 type of an offer.
    bytes32 public constant OFFER_TYPEHASH = keccak256(
        "Offer(address maker,address taker,uint256[] givenIds,uint256[] givenAmounts,uint256[] askedIds,"
        "uint256[] askedAmounts,uint256 askedWei,uint64 expiry,uint256 nonce)"
    );

    /// @notice A maker's signed offer. `taker == address(0)` lets anyone fill it.
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

    /// @notice The card token traded here.
    IERC1155 public immutable cards;

    mapping(address maker => mapping(uint256 word => uint256 bits)) private _spentNonces;
    mapping(address maker => uint256) private _minNonce;

    /// @notice `taker` filled `maker`'s offer `offerHash` (its EIP-712 digest) with nonce `nonce`.
    event OfferFilled(bytes32 indexed offerHash, address indexed maker, address indexed taker, uint256 nonce);
    /// @notice `maker` cancelled the offer with nonce `nonce`.
    event OfferCancelled(address indexed maker, uint256 nonce);
    /// @notice `maker` invalidated every offer with a nonce below `minNonce`.
    event NoncesInvalidated(address indexed maker, uint256 minNonce);

    /// @notice The offer expired at `expiry` (unix seconds).
    error OfferExpired(uint64 expiry);
    /// @notice The offer names taker `taker`, not the caller.
    error WrongTaker(address taker, address caller);
    /// @notice `maker`'s nonce `nonce` was already filled or cancelled.
    error NonceAlreadyUsed(address maker, uint256 nonce);
    /// @notice `maker` invalidated every nonce below `minNonce`.
    error NonceBelowMinimum(address maker, uint256 nonce, uint256 minNonce);
    /// @notice The signature is not `maker`'s signature of the offer.
    error InvalidSignature(address maker);
    /// @notice The offer asks `expected` wei; `sent` was sent.
    error WrongPayment(uint256 expected, uint256 sent);
    /// @notice A new minimum nonce must be above the current one.
    error MinNonceNotIncreased(uint256 current, uint256 requested);

    /// @param cards_ the CardToken contract
    constructor(IERC1155 cards_) EIP712("MetaLedger CardExchange", "1") {
        cards = cards_;
    }

    /// @notice Fill `offer` as its taker: the maker's given cards go to the caller, the asked cards
    /// go from the caller to the maker, and `msg.value` (must equal `askedWei`) goes to the maker.
    function fill(Offer calldata offer, bytes calldata signature) external payable nonReentrant {
        if (offer.taker != address(0) && offer.taker != msg.sender) revert WrongTaker(offer.taker, msg.sender);
        // slither-disable-next-line timestamp (expiry is coarse, in seconds; see SECURITY.md)
        if (block.timestamp > offer.expiry) revert OfferExpired(offer.expiry);
        if (msg.value != offer.askedWei) revert WrongPayment(offer.askedWei, msg.value);
        address maker = offer.maker;
        uint256 nonce = offer.nonce;
        _spendNonce(maker, nonce);
        bytes32 digest = offerDigest(offer);
        if (!SignatureChecker.isValidSignatureNowCalldata(maker, digest, signature)) revert InvalidSignature(maker);
        emit OfferFilled(digest, maker, msg.sender, nonce);

        if (offer.givenIds.length != 0) {
            cards.safeBatchTransferFrom(maker, msg.sender, offer.givenIds, offer.givenAmounts, "");
        }
        if (offer.askedIds.length != 0) {
            cards.safeBatchTransferFrom(msg.sender, maker, offer.askedIds, offer.askedAmounts, "");
        }
        if (msg.value != 0) Address.sendValue(payable(maker), msg.value);
    }

    /// @notice Cancel the caller's offer with nonce `nonce`. Emits {OfferCancelled}.
    function cancel(uint256 nonce) external {
        _spendNonce(msg.sender, nonce);
        emit OfferCancelled(msg.sender, nonce);
    }

    /// @notice Invalidate every offer of the caller with a nonce below `minNonce`. Emits {NoncesInvalidated}.
    function invalidateNoncesBelow(uint256 minNonce_) external {
        uint256 current = _minNonce[msg.sender];
        if (minNonce_ <= current) revert MinNonceNotIncreased(current, minNonce_);
        _minNonce[msg.sender] = minNonce_;
        emit NoncesInvalidated(msg.sender, minNonce_);
    }

    /// @notice Whether `maker`'s nonce `nonce` can no longer be filled (filled, cancelled or below the minimum).
    function isNonceUsed(address maker, uint256 nonce) external view returns (bool) {
        return nonce < _minNonce[maker] || _spentNonces[maker][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @notice The minimum valid nonce of `maker`.
    function minNonce(address maker) external view returns (uint256) {
        return _minNonce[maker];
    }

    /// @notice The EIP-712 digest of `offer` under this contract's domain (what the maker signs).
    function offerDigest(Offer calldata offer) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    OFFER_TYPEHASH,
                    offer.maker,
                    offer.taker,
                    keccak256(abi.encodePacked(offer.givenIds)),
                    keccak256(abi.encodePacked(offer.givenAmounts)),
                    keccak256(abi.encodePacked(offer.askedIds)),
                    keccak256(abi.encodePacked(offer.askedAmounts)),
                    offer.askedWei,
                    offer.expiry,
                    offer.nonce
                )
            )
        );
    }

    function _spendNonce(address maker, uint256 nonce) internal {
        uint256 floor = _minNonce[maker];
        if (nonce < floor) revert NonceBelowMinimum(maker, nonce, floor);
        uint256 bit = 1 << (nonce & 0xff);
        uint256 bits = _spentNonces[maker][nonce >> 8];
        if (bits & bit != 0) revert NonceAlreadyUsed(maker, nonce);
        _spentNonces[maker][nonce >> 8] = bits | bit;
    }
}
