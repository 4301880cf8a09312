// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ICardToken
/// @notice MetaLedger's ERC-1155 card token beyond the ERC-1155 standard: catalogue token ids,
/// edition sizes (every id needs one before it can be minted) and the metadata URI template.
/// @dev Roles (OpenZeppelin AccessControlDefaultAdminRules): the default admin sets edition sizes
/// and grants roles; MINTER_ROLE mints up to the edition sizes; URI_SETTER_ROLE changes the URI.
interface ICardToken {
    /// @notice The edition size of `id` was set (once) to `maxSupply`.
    /// @param id the token id
    /// @param maxSupply the most copies of `id` that can ever exist
    event MaxSupplySet(uint256 indexed id, uint256 maxSupply);

    /// @notice The metadata URI template changed to `newURI` (ERC-1155 `{id}` convention).
    /// @param newURI the new template
    event BaseURIChanged(string newURI);

    /// @notice The edition size of `id` is already set to `maxSupply`; it can be set only once.
    /// @param id the token id
    /// @param maxSupply its edition size
    error CardTokenMaxSupplyAlreadySet(uint256 id, uint256 maxSupply);

    /// @notice An edition size must be at least 1.
    /// @param id the token id
    /// @param maxSupply the refused edition size
    error CardTokenInvalidMaxSupply(uint256 id, uint256 maxSupply);

    /// @notice Minting would bring `id`'s supply to `newSupply`, above its edition size `maxSupply`.
    /// @param id the token id
    /// @param newSupply the supply the mint would reach
    /// @param maxSupply the edition size of `id`
    error CardTokenMaxSupplyExceeded(uint256 id, uint256 newSupply, uint256 maxSupply);

    /// @notice `id` has no edition size yet: the admin sets one ({setMaxSupply}) before any mint.
    /// @param id the token id
    error CardTokenNoMaxSupply(uint256 id);

    /// @notice {setMaxSupplyBatch} got `ids` ids but `maxSupplies` edition sizes.
    /// @param ids the number of ids
    /// @param maxSupplies the number of edition sizes
    error CardTokenInvalidArrayLength(uint256 ids, uint256 maxSupplies);

    /// @notice The role that may mint (up to each id's edition size).
    /// @return role keccak256("MINTER_ROLE")
    function MINTER_ROLE() external view returns (bytes32 role);

    /// @notice The role that may change the metadata URI template.
    /// @return role keccak256("URI_SETTER_ROLE")
    function URI_SETTER_ROLE() external view returns (bytes32 role);

    /// @notice The token id of a catalogue card: `uint256(keccak256(bytes(game + ":" + cardId)))`.
    /// @param game the game's name, e.g. "metax"
    /// @param cardId the card's catalogue id, e.g. "U92-JL"
    /// @return id the token id
    function tokenId(string calldata game, string calldata cardId) external pure returns (uint256 id);

    /// @notice Mint `amount` copies of `id` to `to` (minter only; calls the receiver hook if `to` is
    /// a contract). Reverts {CardTokenNoMaxSupply} or {CardTokenMaxSupplyExceeded}.
    /// @param to the receiver
    /// @param id the token id, which must have an edition size
    /// @param amount the number of copies
    /// @param data passed to the receiver hook
    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external;

    /// @notice Mint several ids at once to `to` (minter only; one TransferBatch event).
    /// @param to the receiver
    /// @param ids the token ids, each with an edition size
    /// @param amounts the number of copies of each id
    /// @param data passed to the receiver hook
    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data)
        external;

    /// @notice Set the edition size of `id`, once (admin only). Emits {MaxSupplySet}.
    /// @param id the token id
    /// @param size the most copies of `id` that can ever exist (at least 1)
    function setMaxSupply(uint256 id, uint256 size) external;

    /// @notice Set the edition sizes of several ids, each once (admin only). Emits {MaxSupplySet} per id.
    /// @param ids the token ids
    /// @param maxSupplies the edition size of each id
    function setMaxSupplyBatch(uint256[] calldata ids, uint256[] calldata maxSupplies) external;

    /// @notice The edition size of `id`.
    /// @param id the token id
    /// @return size the most copies of `id` that can exist; 0 while none is set (no mint possible)
    function maxSupply(uint256 id) external view returns (uint256 size);

    /// @notice Replace the metadata URI template (URI setter only). Emits {BaseURIChanged}.
    /// @param newURI the template; clients substitute `{id}` per ERC-1155
    function setURI(string calldata newURI) external;
}
