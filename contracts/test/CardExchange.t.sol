// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {CardToken} from "../src/CardToken.sol";
import {CardExchange} from "../src/CardExchange.sol";
import {ICardExchange} from "../src/interfaces/ICardExchange.sol";
import {ERC1271WalletMock} from "./mocks/ERC1271WalletMock.sol";
import {ReentrantTakerMock} from "./mocks/ReentrantTakerMock.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {IERC1155Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Errors} from "@openzeppelin/contracts/utils/Errors.sol";

contract CardExchangeTest is Test {
    CardToken token;
    CardExchange exchange;
    address admin = address(0xA11CE);
    uint256 makerKey = 0xA1;
    address maker;
    address taker = address(0xB0B);

    function setUp() public {
        maker = vm.addr(makerKey);
        token = new CardToken("u/{id}", admin, 0);
        exchange = new CardExchange(token);
        vm.startPrank(admin);
        for (uint256 id = 1; id <= 6; ++id) {
            token.setMaxSupply(id, 1000);
        }
        token.mint(maker, 1, 10, "");
        token.mint(taker, 2, 10, "");
        token.mintBatch(maker, _three(3, 4, 5), _three(10, 10, 10), "");
        token.mintBatch(taker, _three(4, 5, 6), _three(10, 10, 10), "");
        vm.stopPrank();
        vm.prank(maker);
        token.setApprovalForAll(address(exchange), true);
        vm.prank(taker);
        token.setApprovalForAll(address(exchange), true);
    }

    function _one(uint256 x) internal pure returns (uint256[] memory a) {
        a = new uint256[](1);
        a[0] = x;
    }

    function _three(uint256 x, uint256 y, uint256 z) internal pure returns (uint256[] memory a) {
        a = new uint256[](3);
        (a[0], a[1], a[2]) = (x, y, z);
    }

    function _offer(uint256 nonce) internal view returns (ICardExchange.Offer memory o) {
        o.maker = maker;
        o.givenIds = _one(1);
        o.givenAmounts = _one(3);
        o.askedIds = _one(2);
        o.askedAmounts = _one(4);
        o.expiry = uint64(block.timestamp + 1 hours);
        o.nonce = nonce;
    }

    function _fill(ICardExchange.Offer memory o) internal {
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.prank(taker);
        exchange.fill{value: o.askedWei}(o, s);
    }

    function test_OfferDigestIsEIP712() public view {
        ICardExchange.Offer memory o = _offer(7);
        o.taker = taker;
        o.askedWei = 5;
        bytes32 structHash = keccak256(
            abi.encode(
                exchange.OFFER_TYPEHASH(),
                o.maker,
                o.taker,
                keccak256(abi.encodePacked(o.givenIds)),
                keccak256(abi.encodePacked(o.givenAmounts)),
                keccak256(abi.encodePacked(o.askedIds)),
                keccak256(abi.encodePacked(o.askedAmounts)),
                o.askedWei,
                o.expiry,
                o.nonce
            )
        );
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("MetaLedger CardExchange"),
                keccak256("1"),
                block.chainid,
                address(exchange)
            )
        );
        assertEq(exchange.offerDigest(o), keccak256(abi.encodePacked("\x19\x01", domain, structHash)));
        assertEq(address(exchange.cards()), address(token));
    }

    function test_FillSwapsAtomically() public {
        ICardExchange.Offer memory o = _offer(1);
        bytes32 digest = exchange.offerDigest(o);
        vm.expectEmit();
        emit ICardExchange.OfferFilled(digest, maker, taker, 1);
        _fill(o);
        assertEq(token.balanceOf(taker, 1), 3);
        assertEq(token.balanceOf(maker, 2), 4);
        assertTrue(exchange.isNonceUsed(maker, 1));
    }

    function test_FillThreeForThree() public {
        ICardExchange.Offer memory o = _offer(1);
        o.givenIds = _three(3, 4, 5);
        o.givenAmounts = _three(1, 2, 3);
        o.askedIds = _three(4, 5, 6);
        o.askedAmounts = _three(4, 5, 6);
        vm.expectEmit();
        emit IERC1155.TransferBatch(address(exchange), maker, taker, o.givenIds, o.givenAmounts);
        vm.expectEmit();
        emit IERC1155.TransferBatch(address(exchange), taker, maker, o.askedIds, o.askedAmounts);
        _fill(o);
        assertEq(token.balanceOf(maker, 3), 9);
        assertEq(token.balanceOf(maker, 4), 10 - 2 + 4);
        assertEq(token.balanceOf(maker, 6), 6);
        assertEq(token.balanceOf(taker, 5), 10 + 3 - 5);
    }

    function test_FillGivingCardsForNothing() public {
        ICardExchange.Offer memory o = _offer(1);
        o.askedIds = new uint256[](0);
        o.askedAmounts = new uint256[](0);
        _fill(o);
        assertEq(token.balanceOf(taker, 1), 3);
    }

    function test_FillWithEth() public {
        ICardExchange.Offer memory o = _offer(1);
        o.askedIds = new uint256[](0);
        o.askedAmounts = new uint256[](0);
        o.askedWei = 1 ether;
        vm.deal(taker, 2 ether);
        _fill(o);
        assertEq(maker.balance, 1 ether);
        assertEq(address(exchange).balance, 0);
    }

    function test_RevertWhen_FilledTwice() public {
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.startPrank(taker);
        exchange.fill(o, s);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeNonceAlreadyUsed.selector, maker, 1));
        exchange.fill(o, s);
        vm.stopPrank();
    }

    function test_RevertWhen_Expired() public {
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.warp(o.expiry + 1);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeOfferExpired.selector, o.expiry));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_WrongTaker() public {
        ICardExchange.Offer memory o = _offer(1);
        o.taker = address(0xCAFE);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.expectRevert(
            abi.encodeWithSelector(ICardExchange.CardExchangeWrongTaker.selector, address(0xCAFE), taker)
        );
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_NamedTakerFills() public {
        ICardExchange.Offer memory o = _offer(1);
        o.taker = taker;
        _fill(o);
        assertEq(token.balanceOf(taker, 1), 3);
    }

    function test_RevertWhen_OtherChain() public {
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.chainId(5);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeInvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_OtherContract() public {
        CardExchange other = new CardExchange(token);
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, other.offerDigest(o));
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeInvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_CardTokenHasNoCode() public {
        vm.expectRevert(
            abi.encodeWithSelector(ICardExchange.CardExchangeInvalidCardToken.selector, address(0x1234))
        );
        new CardExchange(IERC1155(address(0x1234)));
    }

    function test_RevertWhen_Cancelled() public {
        ICardExchange.Offer memory o = _offer(4);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.expectEmit();
        emit ICardExchange.OfferCancelled(maker, 4);
        vm.prank(maker);
        exchange.cancel(4);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeNonceAlreadyUsed.selector, maker, 4));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_NonceBelowMinimum() public {
        ICardExchange.Offer memory o = _offer(4);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.startPrank(maker);
        vm.expectEmit();
        emit ICardExchange.NoncesInvalidated(maker, 5);
        exchange.invalidateNoncesBelow(5);
        assertEq(exchange.minNonce(maker), 5);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeMinNonceNotIncreased.selector, 5, 5));
        exchange.invalidateNoncesBelow(5);
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeNonceBelowMinimum.selector, maker, 4, 5));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_WrongPayment() public {
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.deal(taker, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeWrongPayment.selector, 0, 1));
        vm.prank(taker);
        exchange.fill{value: 1}(o, s);
    }

    function test_RevertWhen_ALegFailsEverythingIsUndone() public {
        // the taker lacks the asked amount: the token's own error bubbles up and the maker's leg is undone
        ICardExchange.Offer memory o = _offer(1);
        o.askedAmounts = _one(11);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.expectRevert(
            abi.encodeWithSelector(IERC1155Errors.ERC1155InsufficientBalance.selector, taker, 10, 11, 2)
        );
        vm.prank(taker);
        exchange.fill(o, s);
        assertEq(token.balanceOf(maker, 1), 10);
        assertFalse(exchange.isNonceUsed(maker, 1));
        // mismatched arrays are the token's ERC1155InvalidArrayLength
        o.askedAmounts = _three(1, 1, 1);
        s = sig(makerKey, exchange.offerDigest(o));
        vm.expectRevert(abi.encodeWithSelector(IERC1155Errors.ERC1155InvalidArrayLength.selector, 1, 3));
        vm.prank(taker);
        exchange.fill(o, s);
        // the maker revoked the exchange's approval
        vm.prank(maker);
        token.setApprovalForAll(address(exchange), false);
        o = _offer(2);
        s = sig(makerKey, exchange.offerDigest(o));
        vm.expectRevert(
            abi.encodeWithSelector(IERC1155Errors.ERC1155MissingApprovalForAll.selector, address(exchange), maker)
        );
        vm.prank(taker);
        exchange.fill(o, s);
    }

    /// @dev An EIP-1271 wallet owned by the maker's key, holding 5 of card 1, the exchange approved.
    function _walletMaker() internal returns (ERC1271WalletMock wallet) {
        wallet = new ERC1271WalletMock(maker);
        vm.prank(admin);
        token.mint(address(wallet), 1, 5, "");
        vm.prank(maker);
        wallet.approve(token, address(exchange));
    }

    function test_ERC1271Maker() public {
        ERC1271WalletMock wallet = _walletMaker();
        ICardExchange.Offer memory o = _offer(1);
        o.maker = address(wallet);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.prank(taker);
        exchange.fill(o, s);
        assertEq(token.balanceOf(address(wallet), 2), 4);
        assertEq(token.balanceOf(taker, 1), 3);
        ICardExchange.Offer memory forged = _offer(2);
        forged.maker = address(wallet);
        s = sig(0xBAD, exchange.offerDigest(forged));
        vm.expectRevert(
            abi.encodeWithSelector(ICardExchange.CardExchangeInvalidSignature.selector, address(wallet))
        );
        vm.prank(taker);
        exchange.fill(forged, s);
    }

    function test_RevertWhen_MakerRefusesEth() public {
        ERC1271WalletMock wallet = _walletMaker();
        vm.prank(maker);
        wallet.setRejectsEth(true);
        ICardExchange.Offer memory o = _offer(1);
        o.maker = address(wallet);
        o.askedIds = new uint256[](0);
        o.askedAmounts = new uint256[](0);
        o.askedWei = 5;
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.deal(taker, 5);
        vm.expectRevert(Errors.FailedCall.selector);
        vm.prank(taker);
        exchange.fill{value: 5}(o, s);
        assertEq(token.balanceOf(address(wallet), 1), 5);
    }

    /// @dev A reentrant taker holding 10 of card 2 (what `_offer` asks), the exchange approved.
    function _attacker() internal returns (ReentrantTakerMock attacker) {
        attacker = new ReentrantTakerMock(exchange);
        vm.prank(admin);
        token.mint(address(attacker), 2, 10, "");
        attacker.approve(token);
    }

    function test_RevertWhen_ReenteredWithTheSameOffer() public {
        ReentrantTakerMock attacker = _attacker();
        ICardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        bytes memory reentry = abi.encodeCall(ICardExchange.fill, (o, s));
        // the nonce is spent before any transfer, so the inner fill of the same offer fails
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeNonceAlreadyUsed.selector, maker, 1));
        attacker.fillAndReenter(o, s, reentry);
        assertEq(token.balanceOf(maker, 1), 10);
        assertFalse(exchange.isNonceUsed(maker, 1));
    }

    function test_ReentrantFillOfAnotherOfferIsJustAnotherFill() public {
        ReentrantTakerMock attacker = _attacker();
        ICardExchange.Offer memory first = _offer(1);
        ICardExchange.Offer memory second = _offer(2);
        bytes memory reentry =
            abi.encodeCall(ICardExchange.fill, (second, sig(makerKey, exchange.offerDigest(second))));
        attacker.fillAndReenter(first, sig(makerKey, exchange.offerDigest(first)), reentry);
        assertTrue(attacker.reentered());
        // both offers filled in full, as two separate fills would have: 3 + 3 cards for 4 + 4
        assertEq(token.balanceOf(address(attacker), 1), 6);
        assertEq(token.balanceOf(maker, 1), 4);
        assertEq(token.balanceOf(maker, 2), 8);
        assertEq(token.balanceOf(address(attacker), 2), 2);
        assertTrue(exchange.isNonceUsed(maker, 1) && exchange.isNonceUsed(maker, 2));
    }

    function testFuzz_FillConservesBalances(uint8 give, uint8 ask, uint256 nonce) public {
        give = uint8(bound(give, 0, 10));
        ask = uint8(bound(ask, 0, 10));
        ICardExchange.Offer memory o = _offer(nonce);
        o.givenAmounts = _one(give);
        o.askedAmounts = _one(ask);
        _fill(o);
        assertEq(token.balanceOf(maker, 1) + token.balanceOf(taker, 1), 10);
        assertEq(token.balanceOf(maker, 2) + token.balanceOf(taker, 2), 10);
        assertEq(token.balanceOf(taker, 1), give);
        assertTrue(exchange.isNonceUsed(maker, nonce));
        assertFalse(exchange.isNonceUsed(maker, nonce ^ 1));
    }

    function testFuzz_TamperedOfferRejected(uint256 nonce, uint256 otherNonce) public {
        vm.assume(nonce != otherNonce);
        ICardExchange.Offer memory o = _offer(nonce);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        o.nonce = otherNonce;
        vm.expectRevert(abi.encodeWithSelector(ICardExchange.CardExchangeInvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }
}
