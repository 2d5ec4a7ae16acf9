// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice EIP-7702 code a one-time address might carry that takes no coin: no `receive`, no
/// payable `fallback`, so a plain call with value reverts.
contract CoinRefuser {
    function ping() external pure returns (uint256) {
        return 1;
    }
}
