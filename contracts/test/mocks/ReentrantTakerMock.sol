// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";
import {ICardExchange} from "../../src/interfaces/ICardExchange.sol";

/// @notice Test-only taker that re-enters CardExchange from its ERC-1155 receiver hook, once.
contract ReentrantTakerMock is ERC1155Holder {
    ICardExchange public immutable exchange;
    bytes private _reentryCall;
    bool public reentered;

    constructor(ICardExchange exchange_) {
        exchange = exchange_;
    }

    /// @notice Approve the exchange for this contract's cards.
    function approve(IERC1155 token) external {
        token.setApprovalForAll(address(exchange), true);
    }

    /// @notice Fill `offer`; from the first receiver hook, call the exchange with `reentry` (raw calldata).
    /// A failing re-entry bubbles its error, so the outer fill reverts with it.
    function fillAndReenter(ICardExchange.Offer calldata offer, bytes calldata signature, bytes calldata reentry)
        external
        payable
    {
        _reentryCall = reentry;
        exchange.fill{value: msg.value}(offer, signature);
    }

    function onERC1155Received(address, address, uint256, uint256, bytes memory) public override returns (bytes4) {
        _reenter();
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] memory, uint256[] memory, bytes memory)
        public
        override
        returns (bytes4)
    {
        _reenter();
        return this.onERC1155BatchReceived.selector;
    }

    function _reenter() private {
        if (_reentryCall.length == 0 || reentered) return;
        reentered = true;
        (bool ok, bytes memory ret) = address(exchange).call(_reentryCall);
        if (!ok) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
    }

    receive() external payable {}
}
