// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The subset of forge's cheatcodes these tests use (forge-std is not on npm).
interface Vm {
    function prank(address sender) external;
    function startPrank(address sender) external;
    function stopPrank() external;
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function addr(uint256 privateKey) external pure returns (address);
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function expectEmit() external;
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData) external;
    function assume(bool condition) external pure;
    function warp(uint256 newTimestamp) external;
    function roll(uint256 newHeight) external;
    function deal(address account, uint256 newBalance) external;
    function chainId(uint256 newChainId) external;
}

/// @notice A minimal forge test base: the cheatcode handle, assertions and `bound`.
abstract contract Test {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    error AssertionFailed(string what);

    function assertTrue(bool ok, string memory what) internal pure {
        if (!ok) revert AssertionFailed(what);
    }

    function assertTrue(bool ok) internal pure {
        assertTrue(ok, "expected true");
    }

    function assertFalse(bool ok) internal pure {
        assertTrue(!ok, "expected false");
    }

    function assertEq(uint256 a, uint256 b) internal pure {
        assertTrue(a == b, "uint256 values differ");
    }

    function assertEq(address a, address b) internal pure {
        assertTrue(a == b, "addresses differ");
    }

    function assertEq(bytes32 a, bytes32 b) internal pure {
        assertTrue(a == b, "bytes32 values differ");
    }

    function assertEq(bool a, bool b) internal pure {
        assertTrue(a == b, "bools differ");
    }

    function assertEq(string memory a, string memory b) internal pure {
        assertTrue(keccak256(bytes(a)) == keccak256(bytes(b)), "strings differ");
    }

    /// @dev Map any `x` into [min, max].
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        return min + (x % (max - min + 1));
    }

    function sig(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }
}
