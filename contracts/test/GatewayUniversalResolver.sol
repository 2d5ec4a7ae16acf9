// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IENSRegistry {
    function resolver(bytes32 node) external view returns (address);
}

/// One query of an ENSIP-21 batch gateway (`query((address,string[],bytes)[])`).
struct BatchQuery {
    address sender;
    string[] urls;
    bytes data;
}

interface IBatchGateway {
    function query(BatchQuery[] memory queries) external view returns (bool[] memory failures, bytes[] memory responses);
}

/// @title UniversalResolver stand-in for tests: forward resolution through an ENSIP-10 extended
/// resolver that answers with an EIP-3668 `OffchainLookup`, the way viem 2.57's `getEnsAddress`
/// calls it (`resolveWithGateways(name, data, gateways)` on `chain.contracts.ensUniversalResolver`).
///
/// No npm package ships the current ENS UniversalResolver, so this is the smallest contract with
/// its interface and errors. The resolver's `OffchainLookup` is not re-raised as is (its `sender`
/// would then not be this contract, and a client must refuse that, EIP-3668 "Client Lookup
/// Protocol" step 4); it is wrapped as one query to the batch gateway the caller names
/// (`gateways`, ENSIP-21; viem answers `x-batch-gateway:true` itself), whose `sender` stays the
/// resolver: the gateway signs for the resolver, which checks the answer in `resolveCallback`.
contract GatewayUniversalResolver {
    error OffchainLookup(address sender, string[] urls, bytes callData, bytes4 callbackFunction, bytes extraData);
    error DNSDecodingFailed(bytes dns);
    error ResolverNotFound(bytes name);
    error ResolverNotContract(bytes name, address resolver);
    error ResolverError(bytes errorData);
    error UnsupportedResolverProfile(bytes4 selector);
    error HttpError(uint16 status, string message);

    bytes4 private constant EXTENDED_RESOLVER = 0x9061b923; // resolve(bytes,bytes), ENSIP-10

    IENSRegistry public immutable registry;

    constructor(IENSRegistry ensRegistry) {
        registry = ensRegistry;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7;
    }

    /// The first resolver on the name or its parents (ENSIP-10), with the byte offset of its label.
    function findResolver(bytes memory name) public view returns (address resolver, bytes32 node, uint256 offset) {
        node = namehash(name, 0);
        while (offset < name.length && uint8(name[offset]) != 0) {
            resolver = registry.resolver(namehash(name, offset));
            if (resolver != address(0)) return (resolver, node, offset);
            offset += uint8(name[offset]) + 1;
        }
        return (address(0), node, 0);
    }

    function resolve(bytes calldata name, bytes calldata data) external view returns (bytes memory, address) {
        return resolveWithGateways(name, data, new string[](0));
    }

    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] memory gateways)
        public
        view
        returns (bytes memory result, address resolver)
    {
        uint256 offset;
        (resolver,, offset) = findResolver(name);
        if (resolver == address(0)) revert ResolverNotFound(name);
        if (resolver.code.length == 0) revert ResolverNotContract(name, resolver);
        bool extended = probe(resolver, EXTENDED_RESOLVER);
        if (!extended && offset != 0) revert ResolverNotFound(name);

        bytes memory call = extended ? abi.encodeWithSelector(EXTENDED_RESOLVER, name, data) : data;
        (bool ok, bytes memory answer) = resolver.staticcall(call);
        if (!ok) {
            if (answer.length >= 4 && bytes4(answer) == OffchainLookup.selector) {
                revertAsBatch(resolver, answer, gateways, extended);
            }
            revert ResolverError(answer);
        }
        if (answer.length == 0) revert UnsupportedResolverProfile(bytes4(data));
        result = extended ? abi.decode(answer, (bytes)) : answer;
    }

    /// Callback of the batch lookup: the gateway's one response goes to the resolver's own
    /// callback (which checks the signature); a failed query is the gateway's error.
    function resolveCallback(bytes calldata response, bytes calldata extraData)
        external
        view
        returns (bytes memory result, address resolver)
    {
        (bool[] memory failures, bytes[] memory responses) = abi.decode(response, (bool[], bytes[]));
        bytes4 callback;
        bytes memory innerExtra;
        bool extended;
        (resolver, callback, innerExtra, extended) = abi.decode(extraData, (address, bytes4, bytes, bool));
        if (failures.length != 1 || responses.length != 1) revert ResolverError(response);
        if (failures[0]) {
            bytes memory failure = responses[0];
            if (failure.length >= 4 && bytes4(failure) == HttpError.selector) {
                assembly {
                    revert(add(failure, 32), mload(failure))
                }
            }
            revert ResolverError(failure);
        }
        (bool ok, bytes memory answer) = resolver.staticcall(abi.encodeWithSelector(callback, responses[0], innerExtra));
        if (!ok) revert ResolverError(answer);
        result = extended ? abi.decode(answer, (bytes)) : answer;
    }

    function revertAsBatch(address resolver, bytes memory lookup, string[] memory gateways, bool extended) private view {
        bytes memory args = new bytes(lookup.length - 4);
        for (uint256 i = 0; i < args.length; i++) args[i] = lookup[i + 4];
        (address sender, string[] memory urls, bytes memory callData, bytes4 callback, bytes memory extraData) =
            abi.decode(args, (address, string[], bytes, bytes4, bytes));
        // EIP-3668: a lookup whose sender is not the contract called cannot be followed.
        if (sender != resolver) revert ResolverError(lookup);
        BatchQuery[] memory queries = new BatchQuery[](1);
        queries[0] = BatchQuery(sender, urls, callData);
        revert OffchainLookup(
            address(this),
            gateways,
            abi.encodeCall(IBatchGateway.query, (queries)),
            this.resolveCallback.selector,
            abi.encode(resolver, callback, extraData, extended)
        );
    }

    /// ERC-165 probe that tolerates contracts without the method.
    function probe(address target, bytes4 interfaceId) private view returns (bool) {
        (bool ok, bytes memory answer) = target.staticcall{gas: 30_000}(abi.encodeWithSelector(0x01ffc9a7, interfaceId));
        return ok && answer.length >= 32 && abi.decode(answer, (bool));
    }

    /// namehash of the DNS-encoded `name` from byte `offset` (EIP-137, ENSIP-10 wire format).
    function namehash(bytes memory name, uint256 offset) internal pure returns (bytes32 node) {
        if (offset >= name.length) revert DNSDecodingFailed(name);
        uint256 length = uint8(name[offset]);
        if (length == 0) return bytes32(0);
        if (offset + 1 + length > name.length) revert DNSDecodingFailed(name);
        bytes32 labelHash;
        assembly {
            labelHash := keccak256(add(add(name, 33), offset), length)
        }
        return keccak256(abi.encodePacked(namehash(name, offset + 1 + length), labelHash));
    }
}
