// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {ICardExchange} from "./interfaces/ICardExchange.sol";

/// @title CardExchange
/// @notice Atomic swaps of CardToken cards between collectors. A maker signs an EIP-712 {Offer}
/// (cards given; cards and/or ETH asked; an optional taker; an expiry; a nonce) and any allowed
/// taker fills it in one transaction: every transfer happens or none does.
/// @dev Nonces are unordered (a bitmap per maker): a nonce is spent by a fill or a cancel, and a
/// maker can also invalidate every nonce below a minimum. Both parties approve this contract as
/// an ERC-1155 operator. Makers may be EIP-1271 contract wallets. The offer's arrays are hashed
/// and forwarded to the token straight from calldata (see `_hashWords`, `_transferBatch`).
contract CardExchange is ICardExchange, EIP712 {
    /// @inheritdoc ICardExchange
    bytes32 public constant OFFER_TYPEHASH = keccak256(
        "Offer(address maker,address taker,uint256[] givenIds,uint256[] givenAmounts,uint256[] askedIds,"
        "uint256[] askedAmounts,uint256 askedWei,uint64 expiry,uint256 nonce)"
    );

    /// @inheritdoc ICardExchange
    IERC1155 public immutable cards;

    mapping(address maker => mapping(uint256 word => uint256 bits)) private _spentNonces;
    mapping(address maker => uint256) private _minNonce;

    /// @param cards_ the CardToken contract (must have code: transfers are low-level calls)
    constructor(IERC1155 cards_) EIP712("MetaLedger CardExchange", "1") {
        if (address(cards_).code.length == 0) revert CardExchangeInvalidCardToken(address(cards_));
        cards = cards_;
    }

    /// @inheritdoc ICardExchange
    function fill(Offer calldata offer, bytes calldata signature) external payable {
        address taker = offer.taker;
        if (taker != address(0) && taker != msg.sender) revert CardExchangeWrongTaker(taker, msg.sender);
        uint64 expiry = offer.expiry;
        // slither-disable-next-line timestamp (expiry is coarse, in seconds; see SECURITY.md)
        if (block.timestamp > expiry) revert CardExchangeOfferExpired(expiry);
        uint256 askedWei = offer.askedWei;
        if (msg.value != askedWei) revert CardExchangeWrongPayment(askedWei, msg.value);
        address maker = offer.maker;
        uint256 nonce = offer.nonce;
        _spendNonce(maker, nonce);
        uint256[] calldata givenIds = offer.givenIds;
        uint256[] calldata givenAmounts = offer.givenAmounts;
        uint256[] calldata askedIds = offer.askedIds;
        uint256[] calldata askedAmounts = offer.askedAmounts;
        bytes32 digest = _hashTypedDataV4(
            keccak256(
                abi.encode(
                    OFFER_TYPEHASH,
                    maker,
                    taker,
                    _hashWords(givenIds),
                    _hashWords(givenAmounts),
                    _hashWords(askedIds),
                    _hashWords(askedAmounts),
                    askedWei,
                    expiry,
                    nonce
                )
            )
        );
        if (!SignatureChecker.isValidSignatureNowCalldata(maker, digest, signature)) {
            revert CardExchangeInvalidSignature(maker);
        }
        emit OfferFilled(digest, maker, msg.sender, nonce);

        if (givenIds.length != 0) _transferBatch(maker, msg.sender, givenIds, givenAmounts);
        if (askedIds.length != 0) _transferBatch(msg.sender, maker, askedIds, askedAmounts);
        if (askedWei != 0) Address.sendValue(payable(maker), askedWei);
    }

    /// @inheritdoc ICardExchange
    function cancel(uint256 nonce) external {
        _spendNonce(msg.sender, nonce);
        emit OfferCancelled(msg.sender, nonce);
    }

    /// @inheritdoc ICardExchange
    function invalidateNoncesBelow(uint256 newMinNonce) external {
        uint256 current = _minNonce[msg.sender];
        if (newMinNonce <= current) revert CardExchangeMinNonceNotIncreased(current, newMinNonce);
        _minNonce[msg.sender] = newMinNonce;
        emit NoncesInvalidated(msg.sender, newMinNonce);
    }

    /// @inheritdoc ICardExchange
    function isNonceUsed(address maker, uint256 nonce) external view returns (bool) {
        return nonce < _minNonce[maker] || _spentNonces[maker][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @inheritdoc ICardExchange
    function minNonce(address maker) external view returns (uint256) {
        return _minNonce[maker];
    }

    /// @inheritdoc ICardExchange
    function offerDigest(Offer calldata offer) external view returns (bytes32) {
        return _hashTypedDataV4(_hashOffer(offer));
    }

    function _spendNonce(address maker, uint256 nonce) private {
        uint256 floor = _minNonce[maker];
        if (nonce < floor) revert CardExchangeNonceBelowMinimum(maker, nonce, floor);
        uint256 bit = 1 << (nonce & 0xff);
        uint256 bits = _spentNonces[maker][nonce >> 8];
        if (bits & bit != 0) revert CardExchangeNonceAlreadyUsed(maker, nonce);
        _spentNonces[maker][nonce >> 8] = bits | bit;
    }

    /// @dev The EIP-712 struct hash of `offer`; arrays hash as the keccak256 of their packed words.
    function _hashOffer(Offer calldata offer) private pure returns (bytes32) {
        return keccak256(
            abi.encode(
                OFFER_TYPEHASH,
                offer.maker,
                offer.taker,
                _hashWords(offer.givenIds),
                _hashWords(offer.givenAmounts),
                _hashWords(offer.askedIds),
                _hashWords(offer.askedAmounts),
                offer.askedWei,
                offer.expiry,
                offer.nonce
            )
        );
    }

    /// @dev `keccak256(abi.encodePacked(words))`, hashed in scratch memory past the free pointer.
    function _hashWords(uint256[] calldata words) private pure returns (bytes32 hash) {
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            let size := shl(5, words.length)
            calldatacopy(ptr, words.offset, size)
            hash := keccak256(ptr, size)
        }
    }

    /// @dev `cards.safeBatchTransferFrom(from, to, ids, amounts, "")` with the arrays copied straight
    /// from calldata (no ABI re-encoding); a revert is bubbled up unchanged. `cards` has code (checked
    /// in the constructor), so a successful call means the token ran the transfer.
    function _transferBatch(address from, address to, uint256[] calldata ids, uint256[] calldata amounts) private {
        address token = address(cards);
        bytes4 selector = IERC1155.safeBatchTransferFrom.selector;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            let idsSize := shl(5, ids.length)
            let amountsSize := shl(5, amounts.length)
            mstore(ptr, selector)
            mstore(add(ptr, 0x04), from)
            mstore(add(ptr, 0x24), to)
            mstore(add(ptr, 0x44), 0xa0) // offset of ids (after the five head words)
            mstore(add(ptr, 0x64), add(0xc0, idsSize)) // offset of amounts
            mstore(add(ptr, 0x84), add(0xe0, add(idsSize, amountsSize))) // offset of data
            mstore(add(ptr, 0xa4), ids.length)
            calldatacopy(add(ptr, 0xc4), ids.offset, idsSize)
            let tail := add(add(ptr, 0xc4), idsSize)
            mstore(tail, amounts.length)
            calldatacopy(add(tail, 0x20), amounts.offset, amountsSize)
            tail := add(add(tail, 0x20), amountsSize)
            mstore(tail, 0) // data: empty bytes
            if iszero(call(gas(), token, 0, ptr, sub(add(tail, 0x20), ptr), 0, 0)) {
                returndatacopy(ptr, 0, returndatasize())
                revert(ptr, returndatasize())
            }
        }
    }
}
