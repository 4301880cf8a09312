// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "./utils/Test.sol";
import {CardToken} from "../src/CardToken.sol";
import {CardExchange} from "../src/CardExchange.sol";
import {ERC1271WalletMock} from "../src/mocks/ERC1271WalletMock.sol";
import {ReentrantTakerMock} from "../src/mocks/ReentrantTakerMock.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

contract CardExchangeTest is Test {
    CardToken token;
    CardExchange exchange;
    address admin = address(0xA11CE);
    uint256 makerKey = 0xA1;
    address maker;
    address taker = address(0xB0B);

    function setUp() public {
        maker = vm.addr(makerKey);
        token = new CardToken("u/{id}", admin);
        exchange = new CardExchange(token);
        vm.startPrank(admin);
        token.mint(maker, 1, 10, "");
        token.mint(taker, 2, 10, "");
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

    function _offer(uint256 nonce) internal view returns (CardExchange.Offer memory o) {
        o.maker = maker;
        o.givenIds = _one(1);
        o.givenAmounts = _one(3);
        o.askedIds = _one(2);
        o.askedAmounts = _one(4);
        o.expiry = uint64(block.timestamp + 1 hours);
        o.nonce = nonce;
    }

    function test_FillSwapsAtomically() public {
        CardExchange.Offer memory o = _offer(1);
        bytes32 digest = exchange.offerDigest(o);
        vm.expectEmit();
        emit CardExchange.OfferFilled(digest, maker, taker, 1);
        vm.prank(taker);
        exchange.fill(o, sig(makerKey, digest));
        assertEq(token.balanceOf(taker, 1), 3);
        assertEq(token.balanceOf(maker, 2), 4);
        assertTrue(exchange.isNonceUsed(maker, 1));
    }

    function test_FillWithEth() public {
        CardExchange.Offer memory o = _offer(1);
        o.askedIds = new uint256[](0);
        o.askedAmounts = new uint256[](0);
        o.askedWei = 1 ether;
        vm.deal(taker, 2 ether);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.prank(taker);
        exchange.fill{value: 1 ether}(o, s);
        assertEq(maker.balance, 1 ether);
    }

    function test_RevertWhen_FilledTwice() public {
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.startPrank(taker);
        exchange.fill(o, s);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.NonceAlreadyUsed.selector, maker, 1));
        exchange.fill(o, s);
        vm.stopPrank();
    }

    function test_RevertWhen_Expired() public {
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.warp(o.expiry + 1);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.OfferExpired.selector, o.expiry));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_WrongTaker() public {
        CardExchange.Offer memory o = _offer(1);
        o.taker = address(0xCAFE);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.expectRevert(abi.encodeWithSelector(CardExchange.WrongTaker.selector, address(0xCAFE), taker));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_OtherChain() public {
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.chainId(5);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.InvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_OtherContract() public {
        CardExchange other = new CardExchange(token);
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, other.offerDigest(o));
        vm.expectRevert(abi.encodeWithSelector(CardExchange.InvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_Cancelled() public {
        CardExchange.Offer memory o = _offer(4);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.expectEmit();
        emit CardExchange.OfferCancelled(maker, 4);
        vm.prank(maker);
        exchange.cancel(4);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.NonceAlreadyUsed.selector, maker, 4));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_NonceBelowMinimum() public {
        CardExchange.Offer memory o = _offer(4);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.startPrank(maker);
        exchange.invalidateNoncesBelow(5);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.MinNonceNotIncreased.selector, 5, 5));
        exchange.invalidateNoncesBelow(5);
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(CardExchange.NonceBelowMinimum.selector, maker, 4, 5));
        vm.prank(taker);
        exchange.fill(o, s);
    }

    function test_RevertWhen_WrongPayment() public {
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.deal(taker, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(CardExchange.WrongPayment.selector, 0, 1));
        vm.prank(taker);
        exchange.fill{value: 1}(o, s);
    }

    function test_ERC1271Maker() public {
        ERC1271WalletMock wallet = new ERC1271WalletMock(maker);
        vm.prank(admin);
        token.mint(address(wallet), 1, 5, "");
        vm.prank(maker);
        wallet.approve(token, address(exchange));
        CardExchange.Offer memory o = _offer(1);
        o.maker = address(wallet);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.prank(taker);
        exchange.fill(o, s);
        assertEq(token.balanceOf(address(wallet), 2), 4);
        assertEq(token.balanceOf(taker, 1), 3);
    }

    function test_RevertWhen_ReenteredFromReceiverHook() public {
        ReentrantTakerMock attacker = new ReentrantTakerMock(exchange);
        vm.prank(admin);
        token.mint(address(attacker), 2, 10, "");
        attacker.approve(token);
        CardExchange.Offer memory o = _offer(1);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        CardExchange.Offer memory second = _offer(2);
        bytes memory reentry =
            abi.encodeCall(CardExchange.fill, (second, sig(makerKey, exchange.offerDigest(second))));
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        attacker.fillAndReenter(o, s, reentry);
        assertEq(token.balanceOf(maker, 1), 10);
    }

    function testFuzz_FillConservesBalances(uint8 give, uint8 ask, uint256 nonce) public {
        give = uint8(bound(give, 0, 10));
        ask = uint8(bound(ask, 0, 10));
        CardExchange.Offer memory o = _offer(nonce);
        o.givenAmounts = _one(give);
        o.askedAmounts = _one(ask);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        vm.prank(taker);
        exchange.fill(o, s);
        assertEq(token.balanceOf(maker, 1) + token.balanceOf(taker, 1), 10);
        assertEq(token.balanceOf(maker, 2) + token.balanceOf(taker, 2), 10);
        assertEq(token.balanceOf(taker, 1), give);
        assertTrue(exchange.isNonceUsed(maker, nonce));
    }

    function testFuzz_TamperedOfferRejected(uint256 nonce, uint256 otherNonce) public {
        vm.assume(nonce != otherNonce);
        CardExchange.Offer memory o = _offer(nonce);
        bytes memory s = sig(makerKey, exchange.offerDigest(o));
        o.nonce = otherNonce;
        vm.expectRevert(abi.encodeWithSelector(CardExchange.InvalidSignature.selector, maker));
        vm.prank(taker);
        exchange.fill(o, s);
    }
}
