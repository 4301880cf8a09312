// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice Test-only EIP-1271 wallet: a signature is valid if its owner EOA signed the hash.
contract ERC1271WalletMock is IERC1271, ERC1155Holder {
    address public immutable owner;
    bool public rejectsEth;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice EIP-1271: the owner's ECDSA signature of `hash` is the wallet's signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && recovered == owner ? this.isValidSignature.selector : bytes4(0);
    }

    /// @notice Approve `operator` for all of the wallet's tokens on `token` (owner only).
    function approve(IERC1155 token, address operator) external {
        require(msg.sender == owner, "not owner");
        token.setApprovalForAll(operator, true);
    }

    /// @notice Make the wallet refuse (or accept again) plain ETH transfers (owner only).
    function setRejectsEth(bool rejects) external {
        require(msg.sender == owner, "not owner");
        rejectsEth = rejects;
    }

    receive() external payable {
        if (rejectsEth) revert();
    }
}
