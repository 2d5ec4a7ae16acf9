// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Paymaster} from "@openzeppelin/contracts/account/paymaster/Paymaster.sol";
import {ERC4337Utils} from "@openzeppelin/contracts/account/utils/ERC4337Utils.sol";
import {IEntryPoint, PackedUserOperation} from "@openzeppelin/contracts/interfaces/IERC4337.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/**
 * @title WraithTokenPaymaster
 * @notice An ERC-4337 v0.8 paymaster for gasless withdrawals from one-time (stealth) addresses
 * that hold an ERC-20 and no coin. It pays an operation's gas when the operation pays the fee, in
 * an accepted token, at the price the operator set on chain: no server signs anything and none
 * sees the one-time address before the bundler does.
 *
 * The fee is taken in validation, before the operation's calls run. `paymasterData` is
 *
 *   token (20 bytes) || fee (uint256, 32 bytes) [|| EIP-2612 permit signature r || s || v (65 bytes)]
 *
 * and it is part of the user operation hash the sender signs, so the sender fixes the most it pays
 * before signing. Validation requires `fee` to cover `maxCost` (the most gas the EntryPoint may
 * charge this paymaster) at the token's price, rounded up; applies the permit (the sender's
 * EIP-2612 signature for exactly `fee`, deadline never, since validation may not read the time);
 * and moves `fee` from the sender to this contract. If the permit or the transfer fails, the
 * operation is refused as a signature failure (AA34): nothing moves, and an estimate with a stub
 * permit still runs. Because the fee is paid before execution, an operation whose calls revert
 * afterwards has still paid for its gas: the deposit cannot be drained by operations that pass
 * validation and then fail (the flaw of taking the fee inside the operation's own calls).
 *
 * The fee is fixed, not refunded: a refund would land back on the one-time address, which must end
 * at exactly 0. Fees collect here; `sweepFees` sends them to the fee account.
 *
 * A price (token base units per 1e18 wei) expires at `validUntil`, enforced by the EntryPoint
 * through the validation data (AA32), and the price updater may move it at most `maxMoveBps` from
 * the current one per update; the owner lists tokens and sets the bounds. List only tokens with an
 * EIP-2612 `permit` (or whose senders already approved this contract).
 *
 * ERC-7562: validation reads this contract's storage and writes the token's storage of the sender
 * (nonce, allowance, balance) and of this contract (its balance), so a bundler needs the paymaster
 * staked (addStake). A token's `permit` compares its deadline with TIMESTAMP, an opcode ERC-7562
 * forbids in validation; a bundler must accept that for this paymaster (as for other permit-based
 * paymasters), or senders approve it beforehand and omit the permit.
 */
contract WraithTokenPaymaster is Paymaster, Ownable {
    using SafeERC20 for IERC20;

    /// @dev One slot: the price, its expiry and how far one update may move it.
    struct Price {
        uint192 tokenPerEth;
        uint48 validUntil;
        uint16 maxMoveBps;
    }

    /// @dev paymasterAndData = paymaster (20) || verification gas (16) || post-op gas (16) || paymasterData.
    uint256 private constant PAYMASTER_DATA_OFFSET = 52;
    /// @dev token (20) || fee (32).
    uint256 private constant FEE_DATA_LENGTH = 52;
    /// @dev ... || r (32) || s (32) || v (1).
    uint256 private constant PERMIT_DATA_LENGTH = FEE_DATA_LENGTH + 65;
    uint256 private constant BPS = 10_000;

    /// @notice Receives the fees (sweepFees).
    address public feeAccount;
    /// @notice May update prices within their bounds (besides the owner).
    address public priceUpdater;
    /// @notice The price of each listed token; tokenPerEth 0: not listed.
    mapping(address token => Price) public prices;

    event TokenPriced(address indexed token, uint256 tokenPerEth, uint48 validUntil, uint16 maxMoveBps);
    event FeeAccountSet(address feeAccount);
    event PriceUpdaterSet(address priceUpdater);
    /// @notice `sender` paid `fee` of `token` for an operation's gas.
    event FeeTaken(address indexed sender, address indexed token, uint256 fee);

    error MalformedPaymasterData(uint256 length);
    error UnlistedToken(address token);
    error FeeTooLow(uint256 fee, uint256 required);
    error PriceMovesTooFar(uint256 current, uint256 proposed, uint16 maxMoveBps);
    error PriceExpiryNotAhead(uint48 validUntil);
    error NotPriceUpdater(address caller);
    error ZeroAddress();

    constructor(address owner_, address feeAccount_) Ownable(owner_) {
        if (feeAccount_ == address(0)) revert ZeroAddress();
        feeAccount = feeAccount_;
        emit FeeAccountSet(feeAccount_);
    }

    /// @inheritdoc Paymaster
    function entryPoint() public pure override returns (IEntryPoint) {
        return ERC4337Utils.ENTRYPOINT_V08;
    }

    /// @notice The fee `maxCost` wei of gas costs in `token` at its set price, rounded up; 0 when unlisted.
    function feeFor(address token, uint256 maxCost) public view returns (uint256) {
        return Math.mulDiv(maxCost, prices[token].tokenPerEth, 1e18, Math.Rounding.Ceil);
    }

    function _validatePaymasterUserOp(
        PackedUserOperation calldata userOp,
        bytes32 /* userOpHash */,
        uint256 maxCost
    ) internal override returns (bytes memory context, uint256 validationData) {
        bytes calldata data = userOp.paymasterAndData[PAYMASTER_DATA_OFFSET:];
        if (data.length != FEE_DATA_LENGTH && data.length != PERMIT_DATA_LENGTH) revert MalformedPaymasterData(data.length);
        IERC20 token = IERC20(address(bytes20(data[:20])));
        uint256 fee = uint256(bytes32(data[20:52]));
        Price memory price = prices[address(token)];
        if (price.tokenPerEth == 0) revert UnlistedToken(address(token));
        uint256 required = Math.mulDiv(maxCost, price.tokenPerEth, 1e18, Math.Rounding.Ceil);
        if (fee < required) revert FeeTooLow(fee, required);

        address sender = userOp.sender;
        if (data.length == PERMIT_DATA_LENGTH) {
            // Anyone who saw the operation may have submitted the permit already: then it fails
            // here and the allowance it set is used below.
            try
                IERC20Permit(address(token)).permit(sender, address(this), fee, type(uint256).max, uint8(data[116]), bytes32(data[52:84]), bytes32(data[84:116]))
            {} catch {}
        }
        // Paid now, whatever the operation's calls do later. A sender that cannot pay is a
        // signature failure, not a revert, so that estimates with a stub permit still run.
        bool paid = token.allowance(sender, address(this)) >= fee && token.trySafeTransferFrom(sender, address(this), fee);
        if (paid) emit FeeTaken(sender, address(token), fee);
        // Expiry through the validation data: the EntryPoint refuses it after validUntil (AA32).
        return ("", ERC4337Utils.packValidationData(paid, 0, price.validUntil));
    }

    /// @notice Send the fees collected in `token` to the fee account (anyone may).
    function sweepFees(IERC20 token) external {
        token.safeTransfer(feeAccount, token.balanceOf(address(this)));
    }

    // --- Operator settings ---

    /// @notice List `token` (or relist, or delist with tokenPerEth 0) at a price valid until `validUntil`.
    function setToken(address token, uint192 tokenPerEth, uint48 validUntil, uint16 maxMoveBps) external onlyOwner {
        if (token == address(0)) revert ZeroAddress();
        if (tokenPerEth != 0 && validUntil <= block.timestamp) revert PriceExpiryNotAhead(validUntil);
        prices[token] = Price(tokenPerEth, tokenPerEth == 0 ? 0 : validUntil, maxMoveBps);
        emit TokenPriced(token, tokenPerEth, validUntil, maxMoveBps);
    }

    /// @notice Update a listed token's price, at most its `maxMoveBps` away from the current one.
    function updatePrice(address token, uint192 tokenPerEth, uint48 validUntil) external {
        if (msg.sender != owner() && msg.sender != priceUpdater) revert NotPriceUpdater(msg.sender);
        Price memory current = prices[token];
        if (current.tokenPerEth == 0) revert UnlistedToken(token);
        if (validUntil <= block.timestamp) revert PriceExpiryNotAhead(validUntil);
        uint256 move = tokenPerEth > current.tokenPerEth ? tokenPerEth - current.tokenPerEth : current.tokenPerEth - tokenPerEth;
        if (tokenPerEth == 0 || move * BPS > uint256(current.tokenPerEth) * current.maxMoveBps) {
            revert PriceMovesTooFar(current.tokenPerEth, tokenPerEth, current.maxMoveBps);
        }
        prices[token] = Price(tokenPerEth, validUntil, current.maxMoveBps);
        emit TokenPriced(token, tokenPerEth, validUntil, current.maxMoveBps);
    }

    function setFeeAccount(address feeAccount_) external onlyOwner {
        if (feeAccount_ == address(0)) revert ZeroAddress();
        feeAccount = feeAccount_;
        emit FeeAccountSet(feeAccount_);
    }

    function setPriceUpdater(address priceUpdater_) external onlyOwner {
        priceUpdater = priceUpdater_;
        emit PriceUpdaterSet(priceUpdater_);
    }

    // --- Deposit and stake at the EntryPoint ---

    /// @notice Add to this paymaster's EntryPoint deposit (anyone may).
    function deposit() external payable {
        _deposit(msg.value);
    }

    function withdrawDeposit(address payable to, uint256 value) external onlyOwner {
        _withdraw(to, value);
    }

    function addStake(uint32 unstakeDelaySec) external payable onlyOwner {
        _addStake(msg.value, unstakeDelaySec);
    }

    function unlockStake() external onlyOwner {
        _unlockStake();
    }

    function withdrawStake(address payable to) external onlyOwner {
        _withdrawStake(to);
    }
}
