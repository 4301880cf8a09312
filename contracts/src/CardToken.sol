// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Supply} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Supply.sol";
import {AccessControlDefaultAdminRules} from
    "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ICardToken} from "./interfaces/ICardToken.sol";

/// @title CardToken
/// @notice ERC-1155 card tokens for every card design of MetaLedger's games: one token id per card
/// design, copies are balances. `tokenId(game, cardId) = uint256(keccak256(bytes(game + ":" + cardId)))`.
/// Every id has an edition size, set once by the admin before its first mint, so the minter can
/// never mint more copies than the admin allowed.
/// @dev One default admin (two-step handover with a delay: OpenZeppelin AccessControlDefaultAdminRules)
/// sets edition sizes and grants MINTER_ROLE and URI_SETTER_ROLE.
contract CardToken is ICardToken, ERC1155Supply, AccessControlDefaultAdminRules {
    /// @inheritdoc ICardToken
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    /// @inheritdoc ICardToken
    bytes32 public constant URI_SETTER_ROLE = keccak256("URI_SETTER_ROLE");

    mapping(uint256 id => uint256) private _maxSupply;

    /// @param uri_ metadata URI template, e.g. "https://cards.example/{id}.json"
    /// @param admin the default admin, who also receives MINTER_ROLE and URI_SETTER_ROLE
    /// @param adminDelay seconds a default admin handover (and a delay change) must wait
    constructor(string memory uri_, address admin, uint48 adminDelay)
        ERC1155(uri_)
        AccessControlDefaultAdminRules(adminDelay, admin)
    {
        _grantRole(MINTER_ROLE, admin);
        _grantRole(URI_SETTER_ROLE, admin);
    }

    /// @inheritdoc ICardToken
    function tokenId(string calldata game, string calldata cardId) external pure returns (uint256) {
        return uint256(keccak256(bytes(string.concat(game, ":", cardId))));
    }

    /// @inheritdoc ICardToken
    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external onlyRole(MINTER_ROLE) {
        _mint(to, id, amount, data);
    }

    /// @inheritdoc ICardToken
    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data)
        external
        onlyRole(MINTER_ROLE)
    {
        _mintBatch(to, ids, amounts, data);
    }

    /// @inheritdoc ICardToken
    function setMaxSupply(uint256 id, uint256 size) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setMaxSupply(id, size);
    }

    /// @inheritdoc ICardToken
    function setMaxSupplyBatch(uint256[] calldata ids, uint256[] calldata maxSupplies)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (ids.length != maxSupplies.length) revert CardTokenInvalidArrayLength(ids.length, maxSupplies.length);
        for (uint256 i = 0; i < ids.length; ++i) {
            _setMaxSupply(ids[i], maxSupplies[i]);
        }
    }

    /// @inheritdoc ICardToken
    function maxSupply(uint256 id) external view returns (uint256) {
        return _maxSupply[id];
    }

    /// @inheritdoc ICardToken
    function setURI(string calldata newURI) external onlyRole(URI_SETTER_ROLE) {
        _setURI(newURI);
        emit BaseURIChanged(newURI);
    }

    /// @notice Whether this contract implements `interfaceId` (ERC-165): ERC-1155, its metadata URI
    /// extension, AccessControl, AccessControlDefaultAdminRules and ERC-165.
    /// @param interfaceId the ERC-165 interface id
    /// @return supported true if implemented
    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC1155, AccessControlDefaultAdminRules)
        returns (bool)
    {
        return super.supportsInterface(interfaceId);
    }

    function _setMaxSupply(uint256 id, uint256 size) private {
        uint256 current = _maxSupply[id];
        if (current != 0) revert CardTokenMaxSupplyAlreadySet(id, current);
        // no supply to compare with: an id without an edition size can't have been minted
        if (size == 0) revert CardTokenInvalidMaxSupply(id, size);
        _maxSupply[id] = size;
        emit MaxSupplySet(id, size);
    }

    /// @dev Enforces edition sizes on mints, after ERC1155Supply has updated the supplies.
    function _update(address from, address to, uint256[] memory ids, uint256[] memory values)
        internal
        override
    {
        super._update(from, to, ids, values);
        if (from == address(0)) {
            for (uint256 i = 0; i < ids.length; ++i) {
                uint256 id = ids[i];
                uint256 cap = _maxSupply[id];
                if (cap == 0) revert CardTokenNoMaxSupply(id);
                uint256 supply = totalSupply(id);
                if (supply > cap) revert CardTokenMaxSupplyExceeded(id, supply, cap);
            }
        }
    }
}
