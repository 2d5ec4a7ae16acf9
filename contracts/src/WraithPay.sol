// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice The ERC-5564 singleton Announcer (EIP-5564; PROTOCOL.md section 7).
interface IERC5564Announcer {
    function announce(uint256 schemeId, address stealthAddress, bytes calldata ephemeralPubKey, bytes calldata metadata) external;
}

/// @title WraithPay: pay a one-time address and announce it in one transaction.
/// @notice Stateless and holds nothing: every wei it receives is forwarded to the one-time address
/// in the same call, tokens move from the payer straight to the one-time address (never through
/// here), and the announcement is made on the canonical Announcer, so readers see it like any
/// other (its `caller` is this contract; the transaction's `from` is the payer). It has no owner,
/// no storage, no `receive` or `fallback`: coin sent to it any other way is refused.
/// @dev Deployed at the same address on every chain through the CREATE2 deployer
/// 0x4e59b44847b379578588920ca78fbf26c0b4956c with salt 0 (see contracts/README.md).
contract WraithPay {
    using SafeERC20 for IERC20;

    /// @notice The canonical ERC-5564 Announcer, the same address on every chain.
    IERC5564Announcer public constant ANNOUNCER = IERC5564Announcer(0x55649E01B5Df198D18D95b5cc5051630cfD45564);

    /// @notice The coin sent with the call is not the coin the call says it forwards.
    error ValueMismatch(uint256 sent, uint256 stated);
    /// @notice The one-time address is the zero address (coin sent there would be burnt).
    error ZeroStealthAddress();
    /// @notice The one-time address refused the coin (its EIP-7702 code reverted or has no way to take it): nothing was paid.
    error CoinRefused(address stealthAddress);

    /// @notice Pay `amount` of the chain's coin to `stealthAddress` and announce the payment.
    /// @dev `msg.value` must equal `amount`: the calldata states what is forwarded, so a wallet
    /// showing either shows the truth, and a call built from two sources that disagree is refused.
    function payNative(address stealthAddress, uint256 amount, uint256 schemeId, bytes calldata ephemeralPubKey, bytes calldata metadata)
        external
        payable
    {
        if (msg.value != amount) revert ValueMismatch(msg.value, amount);
        _forward(stealthAddress, amount);
        ANNOUNCER.announce(schemeId, stealthAddress, ephemeralPubKey, metadata);
    }

    /// @notice Move `amount` of `token` from the caller to `stealthAddress` (the caller approved
    /// this contract for it), forward `gasTopUp` of coin with it so the recipient can pay the gas
    /// of withdrawing, and announce the payment.
    /// @dev SafeERC20: tokens that return no bool (USDT-style) work, tokens that return false or
    /// have no code revert. `msg.value` must equal `gasTopUp`.
    function payToken(
        address stealthAddress,
        IERC20 token,
        uint256 amount,
        uint256 gasTopUp,
        uint256 schemeId,
        bytes calldata ephemeralPubKey,
        bytes calldata metadata
    ) external payable {
        if (msg.value != gasTopUp) revert ValueMismatch(msg.value, gasTopUp);
        if (stealthAddress == address(0)) revert ZeroStealthAddress();
        token.safeTransferFrom(msg.sender, stealthAddress, amount);
        if (gasTopUp > 0) _forward(stealthAddress, gasTopUp);
        ANNOUNCER.announce(schemeId, stealthAddress, ephemeralPubKey, metadata);
    }

    /// @dev A plain call with all gas, as a transfer from the payer would be: a one-time address
    /// that already carries EIP-7702 code (e.g. delegated to Simple7702Account) runs its
    /// `receive`. If that code refuses, the whole payment reverts, so no coin stays here.
    function _forward(address stealthAddress, uint256 value) private {
        if (stealthAddress == address(0)) revert ZeroStealthAddress();
        (bool ok,) = stealthAddress.call{value: value}("");
        if (!ok) revert CoinRefused(stealthAddress);
    }
}
