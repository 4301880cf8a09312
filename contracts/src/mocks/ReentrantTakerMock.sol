// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";
import {CardExchange} from "../CardExchange.sol";

/// @notice Test-only taker that re-enters CardExchange.fill from its ERC-1155 receiver hook.
contract ReentrantTakerMock is ERC1155Holder {
    CardExchange public immutable exchange;
    bytes private _reentryCall;
    bool public reentered;
    bytes public reentryError;

    constructor(CardExchange exchange_) {
        exchange = exchange_;
    }

    /// @notice Approve the exchange for this contract's cards.
    function approve(IERC1155 token) external {
        token.setApprovalForAll(address(exchange), true);
    }

    /// @notice Fill `offer`; during the receiver hook, try `reentry` (raw calldata to the exchange).
    function fillAndReenter(CardExchange.Offer calldata offer, bytes calldata signature, bytes calldata reentry)
        external
        payable
    {
        _reentryCall = reentry;
        exchange.fill{value: msg.value}(offer, signature);
    }

    function onERC1155BatchReceived(address, address, uint256[] memory, uint256[] memory, bytes memory)
        public
        override
        returns (bytes4)
    {
        if (_reentryCall.length != 0 && !reentered) {
            reentered = true;
            (bool ok, bytes memory ret) = address(exchange).call(_reentryCall);
            if (ok) revert("reentry succeeded");
            // bubble the guard's error so the outer fill reverts with it
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        return this.onERC1155BatchReceived.selector;
    }

    receive() external payable {}
}
