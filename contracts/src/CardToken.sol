// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Supply} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Supply.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @title CardToken
/// @notice ERC-1155 card tokens for every card design of MetaLedger's games: one token id per card
/// design, copies are balances. `tokenId(game, cardId) = uint256(keccak256(bytes(game + ":" + cardId)))`.
/// @dev Roles: DEFAULT_ADMIN_ROLE (grants roles, sets edition sizes), MINTER_ROLE, URI_SETTER_ROLE.
contract CardToken is ERC1155Supply, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant URI_SETTER_ROLE = keccak256("URI_SETTER_ROLE");

    /// @dev Edition size per id; 0 means "no maximum set".
    mapping(uint256 id => uint256) private _maxSupply;

    /// @notice The edition size of `id` was set (once) to `maxSupply`.
    event MaxSupplySet(uint256 indexed id, uint256 maxSupply);
    /// @notice The metadata URI template changed to `newURI` (ERC-1155 `{id}` convention).
    event BaseURIChanged(string newURI);

    /// @notice The edition size of `id` is already set to `maxSupply`; it can be set only once.
    error MaxSupplyAlreadySet(uint256 id, uint256 maxSupply);
    /// @notice An edition size must be at least 1 and at least the current supply.
    error InvalidMaxSupply(uint256 id, uint256 maxSupply, uint256 totalSupply);
    /// @notice Minting would bring `id`'s supply to `newSupply`, above its edition size `maxSupply`.
    error MaxSupplyExceeded(uint256 id, uint256 newSupply, uint256 maxSupply);

    /// @param uri_ metadata URI template, e.g. "https://cards.example/{id}.json"
    /// @param admin account receiving DEFAULT_ADMIN_ROLE, MINTER_ROLE and URI_SETTER_ROLE
    constructor(string memory uri_, address admin) ERC1155(uri_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(MINTER_ROLE, admin);
        _grantRole(URI_SETTER_ROLE, admin);
    }

    /// @notice The token id of a catalogue card: `uint256(keccak256(bytes(game + ":" + cardId)))`.
    function tokenId(string calldata game, string calldata cardId) external pure returns (uint256) {
        return uint256(keccak256(bytes(string.concat(game, ":", cardId))));
    }

    /// @notice Mint `amount` copies of `id` to `to` (calls the receiver hook if `to` is a contract).
    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external onlyRole(MINTER_ROLE) {
        _mint(to, id, amount, data);
    }

    /// @notice Mint several ids at once to `to` (one TransferBatch event).
    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data)
        external
        onlyRole(MINTER_ROLE)
    {
        _mintBatch(to, ids, amounts, data);
    }

    /// @notice Set the edition size of `id`, once. Minting beyond it reverts with {MaxSupplyExceeded}.
    function setMaxSupply(uint256 id, uint256 maxSupply_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        uint256 current = _maxSupply[id];
        if (current != 0) revert MaxSupplyAlreadySet(id, current);
        uint256 supply = totalSupply(id);
        if (maxSupply_ == 0 || maxSupply_ < supply) revert InvalidMaxSupply(id, maxSupply_, supply);
        _maxSupply[id] = maxSupply_;
        emit MaxSupplySet(id, maxSupply_);
    }

    /// @notice The edition size of `id` (0 when none is set).
    function maxSupply(uint256 id) external view returns (uint256) {
        return _maxSupply[id];
    }

    /// @notice Replace the metadata URI template (clients substitute `{id}` per ERC-1155).
    function setURI(string calldata newURI) external onlyRole(URI_SETTER_ROLE) {
        _setURI(newURI);
        emit BaseURIChanged(newURI);
    }

    /// @inheritdoc ERC1155
    function supportsInterface(bytes4 interfaceId) public view override(ERC1155, AccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
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
                if (cap != 0) {
                    uint256 supply = totalSupply(id);
                    if (supply > cap) revert MaxSupplyExceeded(id, supply, cap);
                }
            }
        }
    }
}
