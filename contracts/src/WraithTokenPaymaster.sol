// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Paymaster} from "@openzeppelin/contracts/account/paymaster/Paymaster.sol";
import {ERC4337Utils} from "@openzeppelin/contracts/account/utils/ERC4337Utils.sol";
import {IEntryPoint, PackedUserOperation} from "@openzeppelin/contracts/interfaces/IERC4337.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/**
 * @title WraithTokenPaymaster
 * @notice An ERC-4337 v0.8 paymaster for gasless withdrawals from one-time (stealth) addresses
 * that hold an ERC-20 and no coin. It pays an operation's gas when the operation itself pays the
 * fee, in an accepted token, to the fee account, at the price the operator set on chain: no server
 * signs anything and none sees the one-time address before the bundler does.
 *
 * The operation must be the withdrawal the Wraith SDK builds (withdrawGasless), a Simple7702Account
 * (EIP-7702 delegated EOA) batch:
 *
 *   executeBatch([ token.transfer(feeAccount, fee), token.transfer(destination, rest), (destination, coin, "")? ])
 *
 * checked here in validation: the sender delegates to Simple7702Account, the token is listed,
 * `fee` covers `maxCost` (the most gas the EntryPoint may charge this paymaster) at the set price,
 * rounded up, and the sender holds `fee + rest`. The fee is fixed in the signed call data, so the
 * signer knows the most it pays before signing, and `rest = balance - fee` leaves the address at
 * exactly 0 tokens. No postOp: what the EntryPoint charges never exceeds `maxCost`.
 *
 * A price (token base units per 1e18 wei) expires at `validUntil`, enforced by the EntryPoint
 * through the validation data (AA32), and the price updater may move it at most `maxMoveBps` from
 * the current one per update; the owner lists tokens and sets the bounds.
 *
 * ERC-7562: validation reads this contract's storage, the token balance of the sender and the
 * sender's code hash; a public-mempool bundler needs the paymaster staked (addStake).
 */
contract WraithTokenPaymaster is Paymaster, Ownable {
    /// @dev One slot: the price, its expiry and how far one update may move it.
    struct Price {
        uint192 tokenPerEth;
        uint48 validUntil;
        uint16 maxMoveBps;
    }

    /// @dev BaseAccount.Call of eth-infinitism/account-abstraction v0.8.
    struct Call {
        address target;
        uint256 value;
        bytes data;
    }

    /// @dev Simple7702Account.executeBatch((address,uint256,bytes)[]).
    bytes4 private constant EXECUTE_BATCH = 0x34fcd5be;
    /// @dev IERC20.transfer(address,uint256).
    bytes4 private constant TRANSFER = 0xa9059cbb;
    uint256 private constant BPS = 10_000;

    /// @notice The Simple7702Account implementation senders must delegate to (EIP-7702).
    address public immutable accountImplementation;
    /// @dev keccak256(0xef0100 || accountImplementation): the code hash of a delegated sender.
    bytes32 private immutable _delegatedCodeHash;

    /// @notice Receives every fee.
    address public feeAccount;
    /// @notice May update prices within their bounds (besides the owner).
    address public priceUpdater;
    /// @notice The price of each listed token; tokenPerEth 0: not listed.
    mapping(address token => Price) public prices;

    event TokenPriced(address indexed token, uint256 tokenPerEth, uint48 validUntil, uint16 maxMoveBps);
    event FeeAccountSet(address feeAccount);
    event PriceUpdaterSet(address priceUpdater);

    error NotSimple7702Account(address sender);
    error NotAWithdrawal();
    error UnlistedToken(address token);
    error FeeRecipientNotFeeAccount(address recipient);
    error FeeTooLow(uint256 fee, uint256 required);
    error BalanceShort(uint256 balance, uint256 needed);
    error PriceMovesTooFar(uint256 current, uint256 proposed, uint16 maxMoveBps);
    error PriceExpiryNotAhead(uint48 validUntil);
    error NotPriceUpdater(address caller);
    error ZeroAddress();

    constructor(address owner_, address feeAccount_, address accountImplementation_) Ownable(owner_) {
        if (feeAccount_ == address(0) || accountImplementation_ == address(0)) revert ZeroAddress();
        feeAccount = feeAccount_;
        accountImplementation = accountImplementation_;
        _delegatedCodeHash = keccak256(abi.encodePacked(hex"ef0100", accountImplementation_));
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
    ) internal view override returns (bytes memory context, uint256 validationData) {
        address sender = userOp.sender;
        if (sender.codehash != _delegatedCodeHash) revert NotSimple7702Account(sender);
        bytes calldata callData = userOp.callData;
        if (callData.length < 4 || bytes4(callData[:4]) != EXECUTE_BATCH) revert NotAWithdrawal();
        Call[] memory calls = abi.decode(callData[4:], (Call[]));
        if (calls.length != 2 && calls.length != 3) revert NotAWithdrawal();
        (address token, address feeTo, uint256 fee) = _transferOf(calls[0]);
        (address token2, address to, uint256 rest) = _transferOf(calls[1]);
        if (token2 != token || to == address(0)) revert NotAWithdrawal();
        // The coin the address holds, if any, goes to the same destination, as a plain transfer.
        if (calls.length == 3 && (calls[2].target != to || calls[2].data.length != 0)) revert NotAWithdrawal();
        Price memory price = prices[token];
        if (price.tokenPerEth == 0) revert UnlistedToken(token);
        if (feeTo != feeAccount) revert FeeRecipientNotFeeAccount(feeTo);
        uint256 required = Math.mulDiv(maxCost, price.tokenPerEth, 1e18, Math.Rounding.Ceil);
        if (fee < required) revert FeeTooLow(fee, required);
        // The batch must not revert after validation (the gas would be paid for no fee).
        uint256 balance = IERC20(token).balanceOf(sender);
        if (balance < fee + rest) revert BalanceShort(balance, fee + rest);
        // Expiry through the validation data: the EntryPoint refuses it after validUntil (AA32).
        return ("", ERC4337Utils.packValidationData(true, 0, price.validUntil));
    }

    /// @dev The token, recipient and amount of a `transfer` call with no value; reverts otherwise.
    function _transferOf(Call memory call) private pure returns (address token, address recipient, uint256 amount) {
        bytes memory data = call.data;
        if (call.value != 0 || data.length != 68) revert NotAWithdrawal();
        uint256 selector;
        uint256 recipientWord;
        assembly {
            selector := mload(add(data, 32))
            recipientWord := mload(add(data, 36))
            amount := mload(add(data, 68))
        }
        if (bytes4(bytes32(selector)) != TRANSFER || recipientWord >> 160 != 0) revert NotAWithdrawal();
        return (call.target, address(uint160(recipientWord)), amount);
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
