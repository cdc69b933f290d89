#!/usr/bin/env python3
"""Compares every declaration of the Apple stub modules (scripts/apple-stubs/) with Apple's
real SDK, so that what the stubs declare is what Apple declares.

    compare-apple-stubs.py [SDK]      SDK defaults to $APPLESDK_SDK, else
                                      /tmp/applesdk/iPhoneOS17.4-backport.sdk
    --resource-dir DIR   the resource dir swift-synthesize-interface needs for the SDK's C
                         modules (default: SDK/../resource, as ../shared/apple-sdk/setup.sh lays out)
    --cache DIR          where synthesized C-module interfaces are kept (default
                         $COMPARE_APPLE_STUBS_CACHE, else ${TMPDIR:-/tmp}/compare-apple-stubs)
    --stubs DIR          the stub folder (default: scripts/apple-stubs next to this script)
    --dump FILE          print the parsed declarations of a .swift/.swiftinterface file and exit

What is compared with what (arm64 iOS interfaces):
  Network.swift  Network.framework's Network.swiftmodule/arm64-apple-ios.swiftinterface; the C
                 names the stub declares (OS_nw_endpoint, nw_endpoint_t, DNSServiceErrorType,
                 OSStatus) with the Swift interfaces synthesized from the SDK's Network, dnssd and
                 Darwin C modules (`import Network` makes them visible on Apple platforms).
  Combine.swift  Combine.framework's Combine.swiftinterface.
  SwiftUI.swift  SwiftUI.framework's SwiftUI.swiftinterface (in the 17.4 SDK SwiftUI is one
                 module; SwiftUICore came with Xcode 16).
  Darwin.swift   usr/lib/swift/Darwin.swiftmodule (the overlay) and the Swift interface of the
                 Darwin C module as the compiler imports it (swift-synthesize-interface over the
                 SDK's headers): names, parameter and result types, `?` against `!`, getters and
                 setters. Not compared: the stub's constant values (EAGAIN is 35 on Darwin), which
                 a type check does not read. Without swift-synthesize-interface the Darwin stub
                 (and the C names in Network.swift) are reported as skipped, with the reason.

For each public stub declaration (type, case, init, func, var, let, subscript, typealias,
associatedtype, protocol requirement, extension member) the declaration of the same name in the
same enclosing type is looked up in the SDK (any of its extensions; among overloads the closest);
none is a difference. Compared, after normalisation (whitespace, module prefixes such as
`SwiftUI.`/`Swift.`, `Self.`, `any`, `Optional<T>`/`T?`, `Array<T>`/`[T]`, `Void`/`()`, redundant
parentheses, non-generic typealiases expanded, generic parameters renamed by position, generic
constraints written inline or in `where` alike, `let` as `{ get }`, `@MainActor(unsafe)` as
`@MainActor @preconcurrency`, `@unchecked` on a conformance ignored):
  - kind (struct/class/enum/protocol/..., var/case, ...), argument labels, parameter types,
    parameter attributes (`@ViewBuilder`, ...), default arguments (present or not), variadics,
    `inout`, result type, `throws`/`rethrows`/`async`, failable `init?`, `static`, `mutating`,
    generic parameters (count, packs) and every generic requirement, including the `where` of
    the extension the member sits in;
  - property and subscript accessors: `get`, `set` (`_modify` counts as `set`), `mutating get`,
    `nonmutating set`, and each accessor's own availability;
  - availability (effective: the declaration's own `@available` with those of the extension and
    types around it): for each platform the stub lists, the same introduction and deprecation
    as the SDK (a stub may leave out platforms the SDK lists, not claim other versions);
    `unavailable` on a platform (iOS, macOS, tvOS, watchOS, visionOS) or `*` must match both ways;
    `deprecated: 100000` (to be deprecated) counts as not deprecated;
  - isolation: `@MainActor`, `nonisolated`, `@preconcurrency` as written on each declaration
    (an interface writes out what its compiler inferred, so where the SDK has `@MainActor(unsafe)`
    on a view's `body` the stub must write it too), `@Sendable`/`@MainActor` in closure types;
  - attributes that change how code type-checks: `@frozen`, `@propertyWrapper`,
    `@resultBuilder`, `@discardableResult` (implicit on imported C functions),
    `@_disfavoredOverload`, `@dynamicMemberLookup`, result-builder attributes, `open`/`public`;
  - conformances: each one a stub type or extension declares must be declared by the SDK for
    that type (directly or through a protocol that refines it), with the same conditions
    (`where`) and availability, or declared unavailable (`@available(*, unavailable)`) by both;
    a @frozen stub struct or enum, implicitly Sendable, must declare the unavailable Sendable
    conformance the SDK declares for it (where the SDK does not also declare it available);
  - protocols: the protocols they refine (underscored ones only if the stub declares them), and
    the SDK's requirements that have no default implementation must be declared.
Declarations that are not public (internal helpers, `@usableFromInline internal`) and `@_spi`
ones (the SDK's and the stub's stand-in for the primitive views' hidden `body`) are not compared;
nor are imports (`@_exported import`), default-argument and constant values, or where in the type
(declaration or which extension) a member sits, beyond that extension's conditions and availability.

Output: one line per difference, `FILE:LINE: DECL: ASPECT: stub says X, SDK says Y`, then a
count. Exit status: 0 no difference, 1 differences, 77 the SDK is absent, 2 usage or internal error.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STUB_DIR = os.path.join(HERE, 'apple-stubs')
DEFAULT_SDK = '/tmp/applesdk/iPhoneOS17.4-backport.sdk'
TARGET = 'arm64-apple-ios17.4'

MODULES = {
    'Swift', 'SwiftUI', 'SwiftUICore', 'Combine', 'Network', 'Foundation', 'Darwin', 'Dispatch',
    '_Concurrency', 'CoreFoundation', 'CoreGraphics', 'Observation', 'dnssd', 'Security', 'os',
    'UIKit', 'ObjectiveC', '_StringProcessing', 'DeveloperToolsSupport', 'CoreTransferable',
    'Accessibility', 'Symbols', 'CoreData', 'CoreText', 'OSLog', 'UniformTypeIdentifiers',
    'Glibc', 'Musl', 'FoundationEssentials', 'os_object',
}
MAIN_PLATFORMS = ('iOS', 'macOS', 'tvOS', 'watchOS', 'visionOS')
PLATFORM_NAMES = {
    'iOS': 'iOS', 'macOS': 'macOS', 'OSX': 'macOS', 'tvOS': 'tvOS', 'watchOS': 'watchOS',
    'visionOS': 'visionOS', 'xrOS': 'visionOS', 'macCatalyst': 'macCatalyst',
}
# Protocols of the standard library (and Foundation) that refine others, for conformances a
# stub states directly where the SDK states a refinement (NWError: Error implies Sendable).
STDLIB_REFINES = {
    'Hashable': ['Equatable'], 'Comparable': ['Equatable'], 'Error': ['Sendable'],
    'Codable': ['Encodable', 'Decodable'], 'OptionSet': ['SetAlgebra', 'RawRepresentable'],
    'SetAlgebra': ['Equatable', 'ExpressibleByArrayLiteral'],
    'ExpressibleByStringInterpolation': ['ExpressibleByStringLiteral'],
    'ExpressibleByStringLiteral': ['ExpressibleByExtendedGraphemeClusterLiteral'],
    'ExpressibleByExtendedGraphemeClusterLiteral': ['ExpressibleByUnicodeScalarLiteral'],
    'StringProtocol': ['BidirectionalCollection', 'Comparable', 'Hashable', 'TextOutputStream',
                       'TextOutputStreamable', 'LosslessStringConvertible',
                       'ExpressibleByStringInterpolation'],
    'BidirectionalCollection': ['Collection'], 'RandomAccessCollection': ['BidirectionalCollection'],
    'RangeReplaceableCollection': ['Collection'], 'MutableCollection': ['Collection'],
    'Collection': ['Sequence'], 'LosslessStringConvertible': ['CustomStringConvertible'],
    'CustomNSError': ['Error'], 'LocalizedError': ['Error'],
}
# Attributes compared on declarations (besides isolation and availability). Result-builder
# attributes (@ViewBuilder, ...) are added from the SDK's @resultBuilder types.
COMPARED_ATTRS = {'frozen', 'propertyWrapper', 'resultBuilder', 'dynamicMemberLookup',
                  'dynamicCallable', 'discardableResult', '_disfavoredOverload', 'Sendable'}
GLOBAL_ACTORS = {'MainActor'}

TYPE_KINDS = ('struct', 'class', 'enum', 'protocol', 'actor')
MODIFIERS = {'public', 'private', 'fileprivate', 'internal', 'open', 'package', 'final', 'static',
             'mutating', 'nonmutating', 'override', 'required', 'convenience', 'dynamic', 'lazy',
             'optional', 'indirect', 'weak', 'unowned', 'nonisolated', '__consuming', 'consuming',
             'borrowing', 'distributed', 'prefix', 'postfix', 'infix', 'isolated',
             '__setter_access'}
DECL_KEYWORDS = {'struct', 'class', 'enum', 'protocol', 'actor', 'extension', 'func', 'init',
                 'deinit', 'var', 'let', 'subscript', 'typealias', 'associatedtype', 'case',
                 'import', 'operator', 'precedencegroup', 'macro'}
ACCESSOR_KEYWORDS = {'get', 'set', '_read', '_modify', 'willSet', 'didSet', 'unsafeAddress',
                     'unsafeMutableAddress', 'init', 'read', 'modify'}
TYPE_SPECIFIERS = {'inout', 'some', 'any', 'each', 'repeat', 'borrowing', 'consuming', 'sending',
                   '__owned', '__shared', 'isolated', '__setter_access'}
DROPPED_SPECIFIERS = {'any', '__owned', '__shared'}
OPCHARS = set('/=-+!*%<>&|^~?.')


# ---------------------------------------------------------------------------------------------
# Lexing

class Tok:
    __slots__ = ('k', 'v', 'line', 'nl', 'sp', 'esc')

    def __init__(self, k, v, line, nl, sp, esc=False):
        self.k, self.v, self.line, self.nl, self.sp, self.esc = k, v, line, nl, sp, esc

    def __repr__(self):
        return f'{self.k}:{self.v!r}@{self.line}'

    def is_(self, v):
        return self.v == v and not self.esc and self.k != 'str'


EOF = Tok('eof', '', 0, True, True)


def strip_conditionals(text):
    """Keeps the first branch of every #if/#elseif/#else/#endif group (the interfaces' first
    branch is the one for current compilers); line numbers are preserved."""
    out, stack = [], []
    for line in text.split('\n'):
        s = line.strip()
        if re.match(r'#if\b', s):
            stack.append(True)
            out.append('')
        elif re.match(r'#(elseif|else)\b', s):
            if stack:
                stack[-1] = False
            out.append('')
        elif re.match(r'#endif\b', s):
            if stack:
                stack.pop()
            out.append('')
        else:
            out.append(line if all(stack) else '')
    return '\n'.join(out)


def scan_string(text, i):
    """End index of the string literal that starts at i (raw, multi-line, interpolated)."""
    m = re.match(r'(#*)("""|")', text[i:])
    hashes, quote = m.group(1), m.group(2)
    j, n = i + len(m.group(0)), len(text)
    close = quote + hashes
    escape = '\\' + hashes
    while j < n:
        if text.startswith(escape, j):
            k = j + len(escape)
            if k < n and text[k] == '(':
                depth, k = 1, k + 1
                while k < n and depth:
                    if text[k] == '"' or (text[k] == '#' and re.match(r'#+"', text[k:k + 8])):
                        k = scan_string(text, k)
                        continue
                    depth += {'(': 1, ')': -1}.get(text[k], 0)
                    k += 1
                j = k
            else:
                j = k + 1
            continue
        if text.startswith(close, j):
            return j + len(close)
        j += 1
    return n


def lex(text):
    toks, i, n, line = [], 0, len(text), 1
    nl = sp = True
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            nl = sp = True
            i += 1
            continue
        if c in ' \t\r\f\v':
            sp = True
            i += 1
            continue
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    if text[j] == '\n':
                        line += 1
                        nl = True
                    j += 1
            i, sp = j, True
            continue
        start = line
        if c == '"' or (c == '#' and re.match(r'#+"', text[i:i + 8])):
            j = scan_string(text, i)
            line += text.count('\n', i, j)
            toks.append(Tok('str', text[i:j], start, nl, sp))
        elif c.isalpha() or c in '_$' or ord(c) > 127:
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in '_$' or ord(text[j]) > 127):
                j += 1
            toks.append(Tok('id', text[i:j], start, nl, sp))
        elif c == '`':
            j = text.find('`', i + 1)
            toks.append(Tok('id', text[i + 1:j], start, nl, sp, esc=True))
            j += 1
        elif c.isdigit():
            m = re.match(r'[0-9][0-9a-zA-Z_]*(?:\.[0-9][0-9a-zA-Z_]*)*', text[i:])
            j = i + len(m.group(0))
            toks.append(Tok('num', text[i:j], start, nl, sp))
        elif c in OPCHARS:
            if text.startswith('->', i):
                j = i + 2
                toks.append(Tok('op', '->', start, nl, sp))
            else:
                j = i + 1
                toks.append(Tok('op', c, start, nl, sp))
        else:
            j = i + 1
            toks.append(Tok('p', c, start, nl, sp))
        i = j
        nl = sp = False
    return toks


OPEN = {'(': ')', '[': ']', '{': '}'}
CLOSE = {')', ']', '}'}


def split_top(toks, sep=',', angles=True):
    """Splits a token list at `sep` outside brackets (and angle brackets)."""
    parts, cur, depth, adepth = [], [], 0, 0
    for t in toks:
        if t.k == 'p' and t.v in OPEN:
            depth += 1
        elif t.k == 'p' and t.v in CLOSE:
            depth -= 1
        elif angles and t.k == 'op' and t.v == '<':
            adepth += 1
        elif angles and t.k == 'op' and t.v == '>' and adepth:
            adepth -= 1
        if depth == 0 and adepth == 0 and t.is_(sep):
            parts.append(cur)
            cur = []
            continue
        cur.append(t)
    if cur:
        parts.append(cur)
    return parts


def text_of(toks):
    out = ''
    for t in toks:
        if out and t.sp and not out.endswith(('(', '[', '<', '@')) and t.v not in (')', ']', ',', '>', ':'):
            out += ' '
        out += t.v if not t.esc else '`' + t.v + '`'
    return out


# ---------------------------------------------------------------------------------------------
# Declarations

class Param:
    def __init__(self, label, name, attrs, type_toks, default):
        self.label, self.name, self.attrs, self.type, self.default = label, name, attrs, type_toks, default


class Accessor:
    def __init__(self, kind, attrs, mods, effects):
        self.kind, self.attrs, self.mods, self.effects = kind, attrs, mods, effects


class Decl:
    def __init__(self, kind, name, line, file, origin):
        self.kind, self.name, self.line, self.file, self.origin = kind, name, line, file, origin
        self.attrs = []          # [(name, arg tokens or None)]
        self.mods = []           # ['public', 'static', ...]
        self.generics = None     # [(name, [constraint tokens], is_pack)]
        self.params = None       # [Param]
        self.effects = []        # ['async', 'throws']
        self.result = None       # tokens
        self.where = []          # [tokens]
        self.inherits = []       # [tokens]
        self.members = []
        self.accessors = None    # {kind: Accessor}
        self.type = None         # var type / typealias target / associatedtype default
        self.failable = ''
        self.extended = None     # extension: tokens of the extended type
        self.parent = None       # enclosing type or extension
        self.owner = ''          # qualified name of the enclosing type ('' at top level)
        self.value = None        # tokens of a constant's body or initializer

    def attr_names(self):
        return [{'_functionBuilder': 'resultBuilder'}.get(n, n) for n in (a[0].split('.')[-1] for a in self.attrs)]

    def __repr__(self):
        return f'{self.kind} {self.owner + "." if self.owner else ""}{self.name} @{self.file}:{self.line}'


class TokenCursor:
    """A position in a list of tokens: what both parsers read with."""

    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else EOF

    def next(self):
        t = self.peek()
        self.i += 1
        return t


class Parser(TokenCursor):
    def __init__(self, toks, file, origin):
        super().__init__(toks)
        self.file, self.origin = file, origin

    def balanced(self):
        """Consumes a bracketed group starting at the current token; returns its tokens."""
        start = self.i
        depth = 0
        while self.i < len(self.t):
            t = self.t[self.i]
            self.i += 1
            if t.k == 'p' and t.v in OPEN:
                depth += 1
            elif t.k == 'p' and t.v in CLOSE:
                depth -= 1
                if depth == 0:
                    break
        return self.t[start:self.i]

    def angle_group(self):
        start, depth = self.i, 0
        while self.i < len(self.t):
            t = self.t[self.i]
            self.i += 1
            if t.k == 'op' and t.v == '<':
                depth += 1
            elif t.k == 'op' and t.v == '>':
                depth -= 1
                if depth == 0:
                    break
        return self.t[start:self.i]

    def scan(self, stops, newline=True, angles=False):
        """Tokens up to a stop word/punctuation outside brackets, an unmatched closing bracket,
        or (newline=True) the start of a new line outside brackets; angles=True for a type,
        where `<...>` brackets too."""
        out, depth, adepth = [], 0, 0
        while True:
            t = self.peek()
            if t.k == 'eof':
                break
            if angles and t.k == 'op' and t.v == '<':
                adepth += 1
            elif angles and t.k == 'op' and t.v == '>' and adepth:
                adepth -= 1
            elif depth == 0 and adepth == 0:
                if out and newline and t.nl:
                    break
                if t.k != 'str' and not t.esc and t.v in stops:
                    # '=' only when it is not part of '==', '>=', ...
                    if t.v != '=' or not (self.peek(1).v == '=' and not self.peek(1).sp) and not (
                            out and out[-1].k == 'op' and not t.sp):
                        break
                if t.k == 'p' and t.v in CLOSE:
                    break
            if t.k == 'p' and t.v in OPEN:
                depth += 1
            elif t.k == 'p' and t.v in CLOSE:
                depth -= 1
            out.append(t)
            self.i += 1
        return out

    # -- attributes and modifiers

    def parse_attrs(self):
        attrs = []
        while self.peek().is_('@') and self.peek().k == 'p':
            self.i += 1
            name = self.next().v
            while self.peek().is_('.') and not self.peek().sp and self.peek(1).k == 'id':
                self.i += 1
                name += '.' + self.next().v
            if self.peek().is_('<') and not self.peek().sp:
                self.angle_group()  # @TableColumnBuilder<Value, Sort>: the builder's arguments
            args = None
            if self.peek().is_('(') and not self.peek().sp:
                args = self.balanced()[1:-1]
            attrs.append((name, args))
        return attrs

    def parse_mods(self):
        mods = []
        while True:
            t = self.peek()
            if t.k != 'id' or t.esc:
                break
            n = self.peek(1)
            if t.v == 'class':
                if n.k == 'id' and (n.v in MODIFIERS or n.v in ('func', 'var', 'let', 'subscript', 'init')):
                    mods.append('class')
                    self.i += 1
                    continue
                break
            if t.v in MODIFIERS and (n.k == 'id' or (n.is_('(') and not n.sp) or n.is_('@')):
                self.i += 1
                m = t.v
                if self.peek().is_('(') and not self.peek().sp:
                    m += '(' + text_of(self.balanced()[1:-1]) + ')'
                mods.append(m)
                continue
            break
        return mods

    # -- declarations

    def parse_decls(self):
        out = []
        while True:
            t = self.peek()
            if t.k == 'eof' or (t.k == 'p' and t.v == '}'):
                return out
            if t.is_(';'):
                self.i += 1
                continue
            before = self.i
            out.extend(self.parse_decl())
            if self.i == before:
                self.i += 1

    def new(self, kind, name, line, attrs, mods):
        d = Decl(kind, name, line, self.file, self.origin)
        d.attrs, d.mods = attrs, mods
        return d

    def parse_decl(self):
        line = self.peek().line
        attrs = self.parse_attrs()
        mods = self.parse_mods()
        t = self.peek()
        kw = t.v if t.k == 'id' and not t.esc else None
        if kw in TYPE_KINDS:
            self.i += 1
            d = self.new(kw, self.next().v, line, attrs, mods)
            if self.peek().is_('<'):
                d.generics = self.parse_generic_params()
            self.parse_inheritance(d)
            if self.peek().is_('{'):
                self.i += 1
                d.members = self.parse_decls()
                self.i += 1
            return [d]
        if kw == 'extension':
            self.i += 1
            d = self.new('extension', '', line, attrs, mods)
            d.extended = self.scan({':', 'where', '{'}, newline=False)
            d.name = text_of(d.extended)
            self.parse_inheritance(d)
            if self.peek().is_('{'):
                self.i += 1
                d.members = self.parse_decls()
                self.i += 1
            return [d]
        if kw in ('func', 'init', 'subscript'):
            self.i += 1
            if kw == 'func':
                t = self.peek()
                if t.k == 'id':
                    name = self.next().v
                else:
                    name = self.next().v
                    while self.peek().k == 'op' and not self.peek().sp and not self.peek().is_('('):
                        name += self.next().v
            else:
                name = kw
            d = self.new(kw, name, line, attrs, mods)
            if kw == 'init' and self.peek().v in ('?', '!') and not self.peek().sp:
                d.failable = self.next().v
            if self.peek().is_('<') and (kw != 'func' or not self.peek().sp or self.t[self.i - 1].k == 'id'):
                d.generics = self.parse_generic_params()
            if self.peek().is_('('):
                d.params = self.parse_params(self.balanced()[1:-1])
                if kw == 'func' and not re.match(r'[A-Za-z_$]', name):
                    for p in d.params:  # an operator's parameters have no argument labels
                        p.label = None
            d.effects = self.parse_effects()
            if self.peek().is_('->'):
                self.i += 1
                d.result = self.scan({'where', '{'})
            if self.peek().is_('where'):
                self.i += 1
                d.where = split_top(self.scan({'{'}))
            if self.peek().is_('{'):
                body = self.balanced()
                if kw == 'subscript':
                    d.accessors = self.parse_accessor_block(body)
            elif kw == 'subscript':
                d.accessors = {'get': Accessor('get', [], [], [])}
            return [d]
        if kw in ('var', 'let'):
            self.i += 1
            out = []
            while True:
                name_tok = self.next()
                d = self.new(kw, name_tok.v, line, attrs, mods)
                if self.peek().is_(':'):
                    self.i += 1
                    d.type = self.scan({'=', '{', ','}, angles=True)
                if self.peek().is_('='):
                    self.i += 1
                    d.value = self.scan({','})
                if self.peek().is_('{'):
                    body = self.balanced()
                    d.accessors = self.parse_accessor_block(body)
                    if list(d.accessors) == ['get'] and d.accessors['get'].attrs == [] and len(body) == 3:
                        d.value = body[1:2]
                elif kw == 'let':
                    d.accessors = {'get': Accessor('get', [], [], [])}
                else:
                    d.accessors = {'get': Accessor('get', [], [], []), 'set': Accessor('set', [], [], [])}
                out.append(d)
                if self.peek().is_(',') and not self.peek().nl:
                    self.i += 1
                    continue
                return out
        if kw == 'case':
            self.i += 1
            out = []
            while True:
                name = self.next().v
                d = self.new('case', name, line, attrs, mods)
                if self.peek().is_('('):
                    d.params = self.parse_params(self.balanced()[1:-1])
                if self.peek().is_('='):
                    self.i += 1
                    d.value = self.scan({','})
                out.append(d)
                if self.peek().is_(',') and not self.peek().nl:
                    self.i += 1
                    continue
                return out
        if kw == 'typealias':
            self.i += 1
            d = self.new('typealias', self.next().v, line, attrs, mods)
            if self.peek().is_('<'):
                d.generics = self.parse_generic_params()
            if self.peek().is_('='):
                self.i += 1
                d.type = self.scan({'where'})
            if self.peek().is_('where'):
                self.i += 1
                d.where = split_top(self.scan(set()))
            return [d]
        if kw == 'associatedtype':
            self.i += 1
            d = self.new('associatedtype', self.next().v, line, attrs, mods)
            if self.peek().is_(':'):
                self.i += 1
                d.inherits = split_top(self.scan({'=', 'where'}))
            if self.peek().is_('='):
                self.i += 1
                d.type = self.scan({'where'})
            if self.peek().is_('where'):
                self.i += 1
                d.where = split_top(self.scan(set()))
            return [d]
        if kw == 'deinit':
            self.i += 1
            if self.peek().is_('{'):
                self.balanced()
            return []
        if kw == 'precedencegroup':
            self.i += 2
            if self.peek().is_('{'):
                self.balanced()
            return []
        # import, operator, macro, or anything else: the rest of the line
        if kw is not None or attrs or mods:
            self.i += 1 if kw is not None else 0
        self.scan(set())
        return []

    def parse_inheritance(self, d):
        if self.peek().is_(':'):
            self.i += 1
            d.inherits = split_top(self.scan({'where', '{'}, newline=False))
        if self.peek().is_('where'):
            self.i += 1
            d.where = split_top(self.scan({'{'}, newline=False))

    def parse_generic_params(self):
        group = self.angle_group()[1:-1]
        out = []
        for part in split_top(group):
            pack = False
            if part and part[0].is_('each'):
                pack, part = True, part[1:]
            if not part:
                continue
            name = part[0].v
            cons = []
            if len(part) > 2 and part[1].is_(':'):
                cons = split_top(part[2:], '&')
            out.append((name, cons, pack))
        return out

    def parse_effects(self):
        effects = []
        while self.peek().v in ('async', 'throws', 'rethrows', 'reasync') and self.peek().k == 'id':
            e = self.next().v
            if e == 'throws' and self.peek().is_('(') and not self.peek().sp:
                e += '(' + text_of(self.balanced()[1:-1]) + ')'
            effects.append(e)
        return effects

    def parse_params(self, toks):
        params = []
        for part in split_top(toks):
            sub = Parser(part, self.file, self.origin)
            attrs = sub.parse_attrs()
            rest = part[sub.i:]
            colon, depth = None, 0
            for k, t in enumerate(rest):
                if t.k == 'p' and t.v in OPEN:
                    depth += 1
                elif t.k == 'p' and t.v in CLOSE:
                    depth -= 1
                elif depth == 0 and t.is_(':'):
                    colon = k
                    break
            if colon is None:
                names, tail, attrs = [], part, []
            else:
                names, tail = [t.v for t in rest[:colon]], rest[colon + 1:]
            default = None
            depth = 0
            for k, t in enumerate(tail):
                if t.k == 'p' and t.v in OPEN:
                    depth += 1
                elif t.k == 'p' and t.v in CLOSE:
                    depth -= 1
                elif depth == 0 and t.is_('=') and not (k + 1 < len(tail) and tail[k + 1].is_('=')) \
                        and not (k and tail[k - 1].k == 'op' and not t.sp):
                    default, tail = tail[k + 1:], tail[:k]
                    break
            label = names[0] if names else None
            if label == '_':
                label = None
            params.append(Param(label, names[-1] if names else None, attrs, tail, default))
        return params

    def parse_accessor_block(self, body):
        inner = body[1:-1]
        sub = Parser(inner, self.file, self.origin)
        sub.parse_attrs()
        sub.parse_mods()
        if not (sub.peek().k == 'id' and sub.peek().v in ACCESSOR_KEYWORDS
                and (sub.peek(1).k in ('eof',) or sub.peek(1).is_('{') or sub.peek(1).nl
                     or sub.peek(1).v in ACCESSOR_KEYWORDS or sub.peek(1).is_('(')
                     or sub.peek(1).v in ('async', 'throws') or sub.peek(1).is_('@')
                     or sub.peek(1).v in MODIFIERS)):
            return {'get': Accessor('get', [], [], [])}
        sub.i = 0
        acc = {}
        while sub.peek().k != 'eof':
            attrs = sub.parse_attrs()
            mods = sub.parse_mods()
            t = sub.next()
            if t.k == 'eof':
                break
            kind = t.v
            if sub.peek().is_('('):
                sub.balanced()
            effects = sub.parse_effects()
            if sub.peek().is_('{'):
                sub.balanced()
            kind = {'_modify': 'set', 'modify': 'set', 'unsafeMutableAddress': 'set',
                    'unsafeAddress': 'get', 'read': 'get'}.get(kind, kind)
            if kind in ('willSet', 'didSet'):
                acc.setdefault('get', Accessor('get', [], [], []))
                acc.setdefault('set', Accessor('set', [], [], []))
            elif kind in ('get', 'set') and kind not in acc:
                acc[kind] = Accessor(kind, attrs, mods, effects)
        return acc


def parse_file(path, origin, display=None):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    toks = lex(strip_conditionals(text))
    decls = Parser(toks, display or os.path.basename(path), origin).parse_decls()
    return decls


# ---------------------------------------------------------------------------------------------
# Types: parsing and a canonical spelling

class TypeParser(TokenCursor):

    def parse(self):
        node = self.parse_type()
        return node

    def parse_type(self):
        attrs, specs = [], []
        while True:
            t = self.peek()
            if t.is_('@') and t.k == 'p':
                self.i += 1
                name = self.next().v
                while self.peek().is_('.') and not self.peek().sp and self.peek(1).k == 'id':
                    self.i += 1
                    name += '.' + self.next().v
                if self.peek().is_('<') and not self.peek().sp:
                    self.generic_args()
                if self.peek().is_('(') and not self.peek().sp:
                    depth, args = 0, []
                    while True:
                        x = self.next()
                        if x.k == 'eof':
                            break
                        if x.is_('('):
                            depth += 1
                        elif x.is_(')'):
                            depth -= 1
                        args.append(x.v)
                        if depth == 0:
                            break
                    name += ''.join(args)
                attrs.append(name)
            elif t.k == 'id' and not t.esc and t.v in TYPE_SPECIFIERS and self.peek(1).k in ('id', 'p', 'op') \
                    and not self.peek(1).is_('.') and not self.peek(1).is_('<') and not self.peek(1).is_(','):
                self.i += 1
                specs.append(t.v)
            else:
                break
        node = self.parse_postfix()
        if self.peek().v in ('async', 'throws', 'rethrows') or self.peek().is_('->'):
            effects = []
            while self.peek().v in ('async', 'throws', 'rethrows'):
                e = self.next().v
                if e == 'throws' and self.peek().is_('(') and not self.peek().sp:
                    self.i += 1
                    e += '(' + show(TypeParser(self.until_close()).parse(), None) + ')'
                effects.append(e)
            if self.peek().is_('->'):
                self.i += 1
                result = self.parse_type()
                params = node[1] if node[0] == 'tuple' else [(None, node)]
                node = ('func', [p[1] for p in params], effects, result)
        while self.peek().is_('&'):
            self.i += 1
            other = self.parse_postfix()
            node = ('comp', (node[1] if node[0] == 'comp' else [node]) + [other])
        for s in reversed(specs):
            node = ('spec', s, node)
        if attrs:
            node = ('attr', attrs, node)
        return node

    def until_close(self):
        depth, out = 1, []
        while True:
            t = self.next()
            if t.k == 'eof':
                return out
            if t.k == 'p' and t.v in OPEN:
                depth += 1
            elif t.k == 'p' and t.v in CLOSE:
                depth -= 1
                if depth == 0:
                    return out
            out.append(t)

    def parse_postfix(self):
        node = self.parse_primary()
        while True:
            t = self.peek()
            if t.v in ('?', '!') and t.k == 'op' and not t.sp:
                self.i += 1
                node = ('opt', node, t.v)
            elif t.is_('.') and self.peek(1).is_('.') and self.peek(2).is_('.'):
                self.i += 3
                node = ('variadic', node)
            elif t.is_('.') and self.peek(1).k == 'id':
                self.i += 1
                name = self.next().v
                if node[0] == 'path':
                    comps = list(node[1]) + [(name, self.generic_args())]
                    node = ('path', comps)
                else:
                    node = ('member', node, name)
            else:
                return node

    def generic_args(self):
        if not (self.peek().is_('<') and not self.peek().sp):
            return []
        self.i += 1
        args = []
        if self.peek().is_('>'):
            self.i += 1
            return args
        while True:
            args.append(self.parse_type())
            if self.peek().is_(','):
                self.i += 1
                continue
            if self.peek().is_('>'):
                self.i += 1
            return args

    def parse_primary(self):
        t = self.peek()
        if t.is_('('):
            self.i += 1
            elems = []
            while not self.peek().is_(')') and self.peek().k != 'eof':
                label = None
                if self.peek().k == 'id' and (self.peek(1).is_(':') or (self.peek(1).k == 'id' and self.peek(2).is_(':'))):
                    label = self.next().v
                    if self.peek().k == 'id':
                        self.next()
                    self.i += 1
                elems.append((None if label == '_' else label, self.parse_type()))
                if self.peek().is_(','):
                    self.i += 1
            self.i += 1
            return ('tuple', elems)
        if t.is_('['):
            self.i += 1
            key = self.parse_type()
            if self.peek().is_(':'):
                self.i += 1
                value = self.parse_type()
                self.i += 1
                return ('dict', key, value)
            self.i += 1
            return ('arr', key)
        if t.k == 'id':
            self.i += 1
            return ('path', [(t.v, self.generic_args())])
        self.i += 1
        return ('path', [(t.v, [])])


class Ctx:
    """How names in a type are read: generic parameters renamed by position, typealiases and
    nested types resolved in the side (stub or SDK) the type comes from."""

    def __init__(self, side, gmap=None, owners=()):
        self.side, self.gmap, self.owners = side, gmap or {}, owners


def wrap(s, node=None):
    """Parenthesizes a printed type that needs it before a postfix `?`/`!`."""
    depth = 0
    for k, ch in enumerate(s):
        if ch in '([<':
            depth += 1
        elif ch in ')]>' and not (ch == '>' and k and s[k - 1] == '-'):
            depth -= 1
        elif depth == 0 and (s.startswith('->', k) or ch == '&'):
            return f'({s})'
    if s.startswith(('some ', 'any ', '@', 'each ', 'repeat ')):
        return f'({s})'
    return s


def show(node, ctx):
    k = node[0]
    if k == 'path':
        return show_path(node[1], ctx)
    if k == 'opt':
        inner = node[1]
        return wrap(show(inner, ctx), strip_attr(inner)) + node[2]
    if k == 'variadic':
        return show(node[1], ctx) + '...'
    if k == 'arr':
        return '[' + show(node[1], ctx) + ']'
    if k == 'dict':
        return '[' + show(node[1], ctx) + ': ' + show(node[2], ctx) + ']'
    if k == 'tuple':
        elems = node[1]
        if len(elems) == 1 and elems[0][0] is None and elems[0][1][0] != 'spec':
            return show(elems[0][1], ctx)
        return '(' + ', '.join((f'{l}: ' if l else '') + show(e, ctx) for l, e in elems) + ')'
    if k == 'func':
        params = ', '.join(show(p, ctx) for p in node[1])
        eff = ''.join(' ' + e for e in node[2])
        return f'({params}){eff} -> {show(node[3], ctx)}'
    if k == 'comp':
        return ' & '.join(sorted(show(n, ctx) for n in node[1]))
    if k == 'spec':
        if node[1] in DROPPED_SPECIFIERS:
            return show(node[2], ctx)
        return node[1] + ' ' + show(node[2], ctx)
    if k == 'attr':
        attrs = []
        for a in node[1]:
            a = re.sub(r'^(?:' + '|'.join(MODULES) + r')\.', '', a)
            if a.startswith('_'):
                continue
            attrs.append('@' + a)
        inner = show(node[2], ctx)
        return ' '.join(sorted(attrs) + [inner]) if attrs else inner
    if k == 'member':
        return show(node[1], ctx) + '.' + node[2]
    return '?'


def strip_attr(node):
    while node[0] == 'attr':
        node = node[2]
    if node[0] == 'tuple' and len(node[1]) == 1 and node[1][0][0] is None:
        return strip_attr(node[1][0][1])
    return node


def show_path(comps, ctx):
    names = [c[0] for c in comps]
    args = [c[1] for c in comps]
    nominal = False
    while len(names) > 1 and names[0] in MODULES:
        names, args, nominal = names[1:], args[1:], True
    if len(names) > 1 and names[0] == 'Self':
        names, args = names[1:], args[1:]
    shown_args = [[show(a, ctx) for a in al] for al in args]
    if ctx is not None and not nominal and names[0] in ctx.gmap:
        names = [ctx.gmap[names[0]]] + names[1:]
    elif ctx is not None:
        # a nested type of an enclosing type, written without its qualification
        if len(names) >= 1 and not nominal:
            for owner in ctx.owners:
                q = owner + '.' + names[0]
                if ctx.side.has_type(q):
                    names = q.split('.') + names[1:]
                    shown_args = [[]] * (len(q.split('.')) - 1) + shown_args
                    break
        if not any(shown_args):
            target = ctx.side.alias('.'.join(names))
            if target is not None:
                return target
    key = '.'.join(names)
    if key == 'Optional' and len(shown_args[0]) == 1:
        inner = args[0][0]
        return wrap(shown_args[0][0], strip_attr(inner)) + '?'
    if key == 'ImplicitlyUnwrappedOptional' and len(shown_args[0]) == 1:
        return wrap(shown_args[0][0], strip_attr(args[0][0])) + '!'
    if key == 'Array' and len(shown_args[0]) == 1:
        return '[' + shown_args[0][0] + ']'
    if key == 'Dictionary' and len(shown_args[0]) == 2:
        return '[' + shown_args[0][0] + ': ' + shown_args[0][1] + ']'
    if key == 'Void':
        return '()'
    return '.'.join(n + ('<' + ', '.join(a) + '>' if a else '') for n, a in zip(names, shown_args))


def canon(toks, ctx):
    if not toks:
        return ''
    node = TypeParser(toks).parse()
    return show(node, ctx)


def canon_requirements(parts, ctx):
    """Canonical generic requirements: 'T: P' for each protocol of a composition, 'A == B'
    with the two sides sorted."""
    out = set()
    for toks in parts:
        # split at the first ':' or '==' outside brackets
        depth, adepth, at = 0, 0, None
        for k, t in enumerate(toks):
            if t.k == 'p' and t.v in OPEN:
                depth += 1
            elif t.k == 'p' and t.v in CLOSE:
                depth -= 1
            elif t.is_('<'):
                adepth += 1
            elif t.is_('>') and adepth:
                adepth -= 1
            elif depth == 0 and adepth == 0 and t.is_(':'):
                at = (k, ':')
                break
            elif depth == 0 and adepth == 0 and t.is_('=') and k + 1 < len(toks) and toks[k + 1].is_('='):
                at = (k, '==')
                break
        if at is None:
            out.add(canon(toks, ctx))
            continue
        k, op = at
        lhs = canon(toks[:k], ctx)
        rhs_toks = toks[k + (1 if op == ':' else 2):]
        if op == ':':
            for part in split_top(rhs_toks, '&'):
                rhs = canon(part, ctx)
                if rhs != 'Any':
                    out.add(f'{lhs}: {rhs}')
        else:
            a, b = sorted([lhs, canon(rhs_toks, ctx)])
            out.add(f'{a} == {b}')
    return out


# ---------------------------------------------------------------------------------------------
# Availability

def vtuple(v):
    parts = [int(x) for x in re.findall(r'\d+', v)]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts[:3])


def vtext(t):
    if t is None:
        return None
    a, b, c = t
    return f'{a}.{b}' + (f'.{c}' if c else '')


def parse_available(args):
    """{'platforms': {P: {'introduced', 'deprecated', 'unavailable'}}, 'star': {...}} from the
    tokens of one @available."""
    res = {'platforms': {}, 'star': {}}
    parts = split_top(args, ',', angles=False)
    if not parts:
        return res
    first = parts[0]
    if first and first[0].is_('*'):
        star = res['star']
        for p in parts[1:]:
            word = p[0].v if p else ''
            if word == 'unavailable':
                star['unavailable'] = True
            elif word == 'deprecated':
                if len(p) > 2 and p[1].is_(':'):
                    if vtuple(p[2].v)[0] < 100000:
                        star['deprecated'] = True
                else:
                    star['deprecated'] = True
        return res
    if not first or first[0].k != 'id':
        return res
    if len(first) >= 2 and first[1].k == 'num':
        for p in parts:
            if len(p) >= 2 and p[0].k == 'id' and p[1].k == 'num':
                plat = PLATFORM_NAMES.get(p[0].v)
                if plat:
                    res['platforms'].setdefault(plat, {})['introduced'] = vtuple(p[1].v)
        return res
    plat = PLATFORM_NAMES.get(first[0].v)
    if not plat:
        return res
    entry = res['platforms'].setdefault(plat, {})
    for p in parts[1:]:
        if not p:
            continue
        word = p[0].v
        value = p[2].v if len(p) > 2 and p[1].is_(':') else None
        if word == 'unavailable':
            entry['unavailable'] = True
        elif word == 'introduced' and value:
            entry['introduced'] = vtuple(value)
        elif word == 'deprecated':
            v = vtuple(value) if value else (0, 0, 0)
            if v[0] < 100000:
                entry['deprecated'] = v
        elif word == 'obsoleted' and value:
            entry['obsoleted'] = vtuple(value)
    return res


def decl_availability(attrs):
    res = {'platforms': {}, 'star': {}}
    for name, args in attrs:
        if name == 'available' and args:
            merge_into(res, parse_available(args))
    return res


def merge_into(res, other, outer=False):
    """Merges availability `other` into `res`; with outer=True `other` is an enclosing
    declaration's (the later introduction wins, as does any unavailability)."""
    for plat, e in other['platforms'].items():
        cur = res['platforms'].setdefault(plat, {})
        if 'introduced' in e:
            cur['introduced'] = max(cur.get('introduced', (0, 0, 0)), e['introduced'])
        if e.get('unavailable'):
            cur['unavailable'] = True
        if 'deprecated' in e:
            cur['deprecated'] = min(cur.get('deprecated', (999, 0, 0)), e['deprecated'])
    for key, value in other['star'].items():
        if value:
            res['star'][key] = True


def show_platform(plat, e):
    if e is None:
        return f'{plat} not listed'
    if e.get('unavailable'):
        return f'{plat} unavailable'
    s = f'{plat} {vtext(e.get("introduced"))}' if e.get('introduced') else f'{plat} (no version)'
    if 'deprecated' in e:
        s += f' deprecated {vtext(e["deprecated"])}' if e['deprecated'] != (0, 0, 0) else ' deprecated'
    return s


def compare_availability(stub, sdk):
    diffs = []
    sp, dp = stub['platforms'], sdk['platforms']
    for plat in sorted(set(sp) | set(dp)):
        s, d = sp.get(plat), dp.get(plat)
        if s is not None:
            s_un = bool(s.get('unavailable')) or bool(stub['star'].get('unavailable'))
            d_un = bool(d and d.get('unavailable')) or bool(sdk['star'].get('unavailable'))
            if s_un != d_un:
                diffs.append((show_platform(plat, s), show_platform(plat, d)))
                continue
            if s_un:
                continue
            if s.get('introduced') is not None and (d is None or d.get('introduced') != s.get('introduced')):
                diffs.append((show_platform(plat, s), show_platform(plat, d)))
                continue
            if s.get('deprecated') != (d or {}).get('deprecated'):
                diffs.append((show_platform(plat, s), show_platform(plat, d)))
        elif d is not None and d.get('unavailable') and plat in MAIN_PLATFORMS and not stub['star'].get('unavailable'):
            diffs.append((f'{plat} available (not marked)', f'{plat} unavailable'))
    for key in ('unavailable', 'deprecated'):
        if bool(stub['star'].get(key)) != bool(sdk['star'].get(key)):
            diffs.append((f'*{" " + key if stub["star"].get(key) else " not " + key}',
                          f'*{" " + key if sdk["star"].get(key) else " not " + key}'))
    return diffs


# ---------------------------------------------------------------------------------------------
# A side: the declarations of one stub module, or of the SDK modules it is compared with

class Side:
    def __init__(self, name, decl_lists):
        self.name = name
        self.types = {}         # qualified name -> {'primary': Decl|None, 'exts': [Decl], 'members': [Decl]}
        self.other = None       # the side to read a type's generic parameters from if this one lacks it
        self._aliases = {}      # qualified name -> Decl (non-generic typealiases)
        self._alias_cache = {}
        self.protocols = {}     # name -> Decl
        self.builders = set()
        self.peers = [self]     # the sides read together (the SDK's modules), this one first
        self.entry('')
        for decls in decl_lists:
            self.index(decls, '', None, False)

    def entry(self, q):
        return self.types.setdefault(q, {'primary': None, 'exts': [], 'members': []})

    def index(self, decls, owner, container, public_ext):
        for d in decls:
            d.parent, d.owner = container, owner
            if not self.visible(d, container, public_ext):
                continue
            if d.kind == 'extension':
                q = '.'.join(n for n in path_names(d.extended))
                d.owner = q
                self.entry(q)['exts'].append(d)
                self.index(d.members, q, d, 'public' in d.mods)
            elif d.kind in TYPE_KINDS:
                q = (owner + '.' if owner else '') + d.name
                e = self.entry(q)
                if e['primary'] is None:
                    e['primary'] = d
                self.entry(owner)['members'].append(d)
                if d.kind == 'protocol':
                    self.protocols.setdefault(d.name, d)
                if 'resultBuilder' in d.attr_names():
                    self.builders.add(d.name)
                self.index(d.members, q, d, False)
            else:
                self.entry(owner)['members'].append(d)
                if d.kind == 'typealias' and not d.generics:
                    self._aliases.setdefault((owner + '.' if owner else '') + d.name, d)

    @staticmethod
    def visible(d, container, public_ext):
        if any(a[0] == '_spi' for a in d.attrs):
            return False
        if d.kind == 'extension':
            return True
        if d.kind == 'case' or (container is not None and container.kind == 'protocol'):
            return True
        if 'public' in d.mods or 'open' in d.mods:
            return True
        if public_ext and not any(m in d.mods for m in ('internal', 'private', 'fileprivate', 'package')):
            return True
        return False

    def has_type(self, q):
        for side in self.peers:
            e = side.types.get(q)
            if e and (e['primary'] is not None or e['exts']):
                return True
        return False

    def primary(self, q):
        e = self.types.get(q)
        return e['primary'] if e else None

    def alias(self, q):
        if q in self._alias_cache:
            return self._alias_cache[q]
        owner_side = next((side for side in self.peers if q in side._aliases), None)
        if owner_side is not self:
            return owner_side.alias(q) if owner_side is not None else None
        d = self._aliases.get(q)
        if d is None or not d.type:
            return None
        # not when the typealias sits in a generic type or a protocol (its target may name them)
        comps = d.owner.split('.') if d.owner else []
        for k in range(1, len(comps) + 1):
            p = self.primary('.'.join(comps[:k]))
            if p is not None and (p.generics or p.kind == 'protocol'):
                return None
        self._alias_cache[q] = None  # cycle guard
        owners = tuple(reversed(['.'.join(comps[:k]) for k in range(1, len(comps) + 1)]))
        target = canon(d.type, Ctx(self, {}, owners))
        self._alias_cache[q] = target
        return target


def path_names(toks):
    names = []
    for t in toks:
        if t.k == 'id':
            names.append(t.v)
        elif t.is_('<'):
            break
    while len(names) > 1 and names[0] in MODULES:
        names = names[1:]
    return names


def owner_chain(q):
    comps = q.split('.') if q else []
    return ['.'.join(comps[:k]) for k in range(1, len(comps) + 1)]


def scope(decl, side, include_self=False):
    """Generic parameter renaming and the owners to resolve nested names in, for `decl`."""
    gmap, depth = {}, 0
    chain = owner_chain(decl.owner)
    if include_self and decl.kind in TYPE_KINDS:
        chain = chain + [(decl.owner + '.' if decl.owner else '') + decl.name]
    for q in chain:
        p = side.primary(q) or (side.other.primary(q) if side.other else None)
        if include_self and q == chain[-1] and decl.kind in TYPE_KINDS:
            p = decl
        if p is not None and p.generics and p.kind != 'protocol':
            for idx, g in enumerate(p.generics):
                gmap[g[0]] = f'τ{depth}_{idx}'
            depth += 1
    if decl.generics and decl.kind not in TYPE_KINDS:
        for idx, g in enumerate(decl.generics):
            gmap[g[0]] = f'τ{depth}_{idx}'
    return Ctx(side, gmap, tuple(reversed(chain)))


def avail_chain(decl, side):
    """Effective availability of decl: its own, its extension's, the extended type's and
    the enclosing types'."""
    res = decl_availability(decl.attrs)
    seen = set()
    cur = decl.parent
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        merge_into(res, decl_availability(cur.attrs), outer=True)
        if cur.kind == 'extension':
            p = side.primary(cur.owner)
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                merge_into(res, decl_availability(p.attrs), outer=True)
                cur = p.parent
                continue
        cur = cur.parent
    return res


def isolation(decl):
    out = set()
    for name, args in decl.attrs:
        base = name.split('.')[-1]
        if base in GLOBAL_ACTORS:
            out.add('@' + base)
            if args and text_of(args) == 'unsafe':
                out.add('@preconcurrency')
        elif base == 'preconcurrency':
            out.add('@preconcurrency')
    for m in decl.mods:
        if m.startswith('nonisolated'):
            out.add(m)
    return out


def compared_attrs(decl, builders):
    out = set()
    for a in decl.attr_names():
        if a in COMPARED_ATTRS or a in builders:
            out.add('@' + a)
    if decl.origin == 'clang' and decl.kind == 'func':
        out.add('@discardableResult')  # the compiler marks imported C functions so
    if decl.kind == 'func' and (not decl.result or text_of(decl.result).split('.')[-1] in ('Void', 'Never', '()')):
        out.discard('@discardableResult')  # no result to discard
    return out


def type_member(decl):
    return 'static' in decl.mods or 'class' in decl.mods


# ---------------------------------------------------------------------------------------------
# Comparison

def label_sig(d):
    if d.params is None:
        return ''
    return '(' + ''.join((p.label or '_') + ':' for p in d.params) + ')'


def display(d):
    owner = d.owner + '.' if d.owner else ''
    if d.kind == 'extension':
        return 'extension ' + d.owner
    if d.kind in ('func', 'init', 'subscript'):
        return owner + d.name + label_sig(d)
    if d.kind == 'case' and d.params:
        return owner + d.name + label_sig(d)
    return owner + d.name


def kind_class(d):
    if d.kind in ('var', 'let'):
        return 'property'
    if d.kind in TYPE_KINDS or d.kind in ('typealias', 'associatedtype'):
        return 'type'
    return d.kind


def kind_text(d):
    if d.kind in ('var', 'let'):
        return ('static ' if type_member(d) else '') + 'property'
    return d.kind


def show_accessors(d):
    if not d.accessors:
        return '(none)'
    parts = []
    for k in ('get', 'set'):
        a = d.accessors.get(k)
        if a is None:
            continue
        mods = [m for m in a.mods if m in ('mutating', 'nonmutating')]
        default = 'nonmutating' if k == 'get' else 'mutating'
        mods = [m for m in mods if m != default]
        parts.append(' '.join(mods + [k] + a.effects))
    return '{ ' + ' '.join(parts) + ' }'


class Comparer:
    def __init__(self, stub, sdk_sides):
        self.stub, self.sdks = stub, sdk_sides
        self.sdk = sdk_sides[0]
        self.builders = set()
        for s in sdk_sides:
            self.builders |= s.builders
        self.diffs = []
        self.compared = 0

    def report(self, d, aspect, stub_says, sdk_says):
        self.diffs.append((d.file, d.line, display(d), aspect, stub_says, sdk_says))

    # -- lookup

    def candidates(self, d):
        out = []
        for side in self.sdks:
            e = side.types.get(d.owner)
            if e is None:
                continue
            out += [(side, m) for m in e['members'] if m.name == d.name]
        if d.kind == 'case':
            out = [x for x in out if x[1].kind == 'case'] or out
        return out

    def sdk_type_entry(self, q):
        for side in self.sdks:
            e = side.types.get(q)
            if e and (e['primary'] is not None or e['exts']):
                return side, e
        return None, None

    def sdk_type_decls(self, q):
        """(side, declaration) for the primary declaration and every extension of q."""
        out = []
        for side in self.sdks:
            e = side.types.get(q)
            if e:
                out += [(side, p) for p in ([e['primary']] if e['primary'] is not None else []) + e['exts']]
        return out

    # -- walk

    def run(self, decls):
        for d in decls:
            self.walk(d)

    def walk(self, d):
        if not Side.visible(d, d.parent, d.parent is not None and d.parent.kind == 'extension' and 'public' in d.parent.mods):
            return
        if d.kind == 'extension':
            self.compare_conformances(d)
            for m in d.members:
                self.walk(m)
            return
        self.compare_member(d)
        if d.kind in TYPE_KINDS:
            self.compare_conformances(d)
            for m in d.members:
                self.walk(m)

    # -- one declaration

    def compare_member(self, d):
        self.compared += 1
        cands = self.candidates(d)
        if not cands:
            self.report(d, 'declaration', f'{kind_text(d)} {d.name} exists', 'no such declaration'
                        + (f' in {d.owner}' if d.owner else ' at top level'))
            return
        same = [(side, c) for side, c in cands if kind_class(c) == kind_class(d)]
        if not same:
            self.report(d, 'kind', kind_text(d), kind_text(cands[0][1]))
            return
        best, best_diffs = None, None
        for side, c in same:
            diffs = self.member_diffs(d, c, side)
            score = sum(100 if a == 'argument labels' else 10 if a.endswith('type') or a == 'kind' else 1
                        for a, _, _ in diffs)
            if best is None or score < best[0]:
                best, best_diffs = (score, c), diffs
            if score == 0:
                break
        for aspect, s, k in best_diffs:
            self.report(d, aspect, s, k)

    def member_diffs(self, d, c, side):
        diffs = []
        sctx = scope(d, self.stub, include_self=True)
        kctx = scope(c, side, include_self=True)
        if d.kind != c.kind and not ({d.kind, c.kind} <= {'var', 'let'}):
            diffs.append(('kind', d.kind, c.kind))
        if kind_class(d) == 'type' and d.kind == c.kind:
            sg, kg = d.generics or [], c.generics or []
            if d.kind == 'protocol':
                if [g[0] for g in sg] != [g[0] for g in kg]:
                    diffs.append(('primary associated types', '<' + ', '.join(g[0] for g in sg) + '>',
                                  '<' + ', '.join(g[0] for g in kg) + '>'))
            elif len(sg) != len(kg) or [g[2] for g in sg] != [g[2] for g in kg]:
                diffs.append(('generic parameters', '<' + ', '.join(('each ' if g[2] else '') + g[0] for g in sg) + '>',
                              '<' + ', '.join(('each ' if g[2] else '') + g[0] for g in kg) + '>'))
            if d.kind == 'protocol':
                ra = self.refinements(d, sctx)
                rb = self.refinements(c, kctx)
                if ra != rb:
                    diffs.append(('refines', ', '.join(sorted(ra)) or '(nothing)', ', '.join(sorted(rb)) or '(nothing)'))
            if d.kind == 'class' and (('open' in d.mods) != ('open' in c.mods)):
                diffs.append(('access', 'open' if 'open' in d.mods else 'public', 'open' if 'open' in c.mods else 'public'))
        # parameters
        if d.params is not None or c.params is not None:
            sp, kp = d.params or [], c.params or []
            if [p.label for p in sp] != [p.label for p in kp]:
                diffs.append(('argument labels', label_sig(d) or '(no parameters)', label_sig(c) or '(no parameters)'))
            else:
                for idx, (a, b) in enumerate(zip(sp, kp)):
                    where = f'parameter {idx + 1} ({a.label or "_"}:)'
                    ta, tb = canon(a.type, sctx), canon(b.type, kctx)
                    if ta != tb:
                        diffs.append((where + ' type', ta, tb))
                    aa = {'@' + n.split('.')[-1] for n, _ in a.attrs if not n.split('.')[-1].startswith('_')}
                    ab = {'@' + n.split('.')[-1] for n, _ in b.attrs if not n.split('.')[-1].startswith('_')}
                    if aa != ab:
                        diffs.append((where + ' attributes', ' '.join(sorted(aa)) or '(none)', ' '.join(sorted(ab)) or '(none)'))
                    if d.kind != 'case' and (a.default is None) != (b.default is None):
                        diffs.append((where + ' default value', 'none' if a.default is None else '= ' + text_of(a.default),
                                      'none' if b.default is None else '= ' + text_of(b.default)))
        if d.failable != c.failable:
            diffs.append(('failable', 'init' + d.failable, 'init' + c.failable))
        if d.effects != c.effects and (d.effects or c.effects):
            diffs.append(('effects', ' '.join(d.effects) or '(none)', ' '.join(c.effects) or '(none)'))
        if d.result is not None or c.result is not None:
            ra, rb = canon(d.result or [], sctx) or '()', canon(c.result or [], kctx) or '()'
            if ra != rb:
                diffs.append(('result type', ra, rb))
        if d.kind in ('var', 'let') and c.kind in ('var', 'let'):
            ta, tb = canon(d.type or [], sctx), canon(c.type or [], kctx)
            if ta != tb:
                diffs.append(('type', ta, tb))
        if d.kind == 'typealias' and c.kind == 'typealias':
            ta, tb = canon(d.type or [], sctx), canon(c.type or [], kctx)
            if ta != tb:
                diffs.append(('typealias target', ta, tb))
        if d.kind == 'associatedtype' and c.kind == 'associatedtype':
            ia = canon_requirements([[Tok('id', 'Self', 0, False, False), Tok('p', ':', 0, False, False)] + x for x in d.inherits], sctx)
            ib = canon_requirements([[Tok('id', 'Self', 0, False, False), Tok('p', ':', 0, False, False)] + x for x in c.inherits], kctx)
            if ia != ib:
                diffs.append(('constraints', ', '.join(sorted(ia)) or '(none)', ', '.join(sorted(ib)) or '(none)'))
            da, db = canon(d.type or [], sctx), canon(c.type or [], kctx)
            if da != db:
                diffs.append(('default', da or '(none)', db or '(none)'))
        # generic parameters of functions and their requirements
        if kind_class(d) in ('func', 'init', 'subscript', 'typealias'):
            ga, gb = d.generics or [], c.generics or []
            if len(ga) != len(gb) or [g[2] for g in ga] != [g[2] for g in gb]:
                diffs.append(('generic parameters', '<' + ', '.join(g[0] for g in ga) + '>', '<' + ', '.join(g[0] for g in gb) + '>'))
        ra, rb = self.requirements(d, sctx), self.requirements(c, kctx)
        if ra != rb:
            diffs.append(('generic requirements', ', '.join(sorted(ra - rb)) or '(fewer)', ', '.join(sorted(rb - ra)) or '(fewer)'))
        # modifiers
        if kind_class(d) != 'type' and type_member(d) != type_member(c):
            diffs.append(('static', 'static' if type_member(d) else 'instance', 'static' if type_member(c) else 'instance'))
        for m in ('mutating', 'prefix', 'postfix'):
            if (m in d.mods) != (m in c.mods):
                diffs.append((m, m if m in d.mods else 'not ' + m, m if m in c.mods else 'not ' + m))
        ia, ib = isolation(d), isolation(c)
        if ia != ib:
            diffs.append(('isolation', ' '.join(sorted(ia)) or '(none)', ' '.join(sorted(ib)) or '(none)'))
        aa, ab = compared_attrs(d, self.builders), compared_attrs(c, self.builders)
        if aa != ab:
            diffs.append(('attributes', ' '.join(sorted(aa)) or '(none)', ' '.join(sorted(ab)) or '(none)'))
        # accessors
        if d.accessors is not None and c.accessors is not None:
            sa, ka = show_accessors(d), show_accessors(c)
            if sa != ka:
                diffs.append(('accessors', sa, ka))
            for k in ('get', 'set'):
                x, y = d.accessors.get(k), c.accessors.get(k)
                if x is None or y is None:
                    continue
                av_x, av_y = decl_availability(x.attrs), decl_availability(y.attrs)
                if av_x['platforms'] or av_x['star'] or av_y['platforms'] or av_y['star']:
                    merge_into(av_x, avail_chain(d, self.stub), outer=True)
                    merge_into(av_y, avail_chain(c, side), outer=True)
                    for s, k2 in compare_availability(av_x, av_y):
                        diffs.append((f'availability of {k}', s, k2))
        # availability
        for s, k in compare_availability(avail_chain(d, self.stub), avail_chain(c, side)):
            diffs.append(('availability', s, k))
        return diffs

    def refinements(self, proto, ctx):
        """The protocols `proto` refines, with what they refine in turn (AnyObject left out:
        it follows from a class-bound refinement)."""
        out = set()
        for inh in proto.inherits:
            out |= self.closure(canon(strip_conformance_attrs(inh), ctx))
        for req in canon_requirements(proto.where, ctx):
            if req.startswith('Self: '):
                out |= self.closure(req[len('Self: '):])
        out.discard('AnyObject')
        # underscored protocols (SwiftUI's _PreviewProvider) only where the stub declares them
        return {p for p in out if not p.startswith('_') or self.stub.has_type(p)}

    def requirements(self, d, ctx):
        parts = list(d.where)
        for g in (d.generics or []) if d.kind != 'protocol' else []:  # a protocol's are associated types
            for cons in g[1]:
                parts.append([Tok('id', g[0], 0, False, False), Tok('p', ':', 0, False, False)] + cons)
        if d.parent is not None and d.parent.kind == 'extension' and d.kind not in TYPE_KINDS:
            parts += list(d.parent.where)
        return canon_requirements(parts, ctx)

    # -- conformances

    def closure(self, proto, seen=None):
        seen = set() if seen is None else seen
        if proto in seen:
            return seen
        seen.add(proto)
        for parent in STDLIB_REFINES.get(proto, []):
            self.closure(parent, seen)
        for side in self.sdks:
            p = side.protocols.get(proto)
            if p is not None:
                ctx = Ctx(side)
                for inh in p.inherits:
                    self.closure(canon(strip_conformance_attrs(inh), ctx), seen)
                break
        return seen

    def compare_conformances(self, d):
        if not d.inherits:
            return
        q = d.owner if d.kind == 'extension' else ((d.owner + '.' if d.owner else '') + d.name)
        sctx = scope(d, self.stub, include_self=True) if d.kind != 'extension' else scope_ext(d, self.stub)
        s_where = canon_requirements(d.where, sctx) if d.kind == 'extension' else set()
        s_avail = avail_chain(d, self.stub)
        decls = self.sdk_type_decls(q)
        providers = []
        if decls:
            for side, p in decls:
                pctx = scope(p, side, include_self=True) if p.kind != 'extension' else scope_ext(p, side)
                p_where = canon_requirements(p.where, pctx) if p.kind == 'extension' else set()
                for inh in p.inherits:
                    name = canon(strip_conformance_attrs(inh), pctx)
                    providers.append((p, name, self.closure(name), p_where, avail_chain(p, side)))
        for inh in d.inherits:
            name = canon(strip_conformance_attrs(inh), sctx)
            if d.kind == 'protocol':
                continue  # a protocol's refinements are compared with its declaration
            self.compared += 1
            found = [p for p in providers if name in p[2]]
            if not found:
                self.diffs.append((d.file, inh[0].line if inh else d.line, q, f'conformance to {name}',
                                   'declared', 'not declared' if decls else f'no type {q}'))
                continue
            s_unavailable = bool(s_avail['star'].get('unavailable'))
            if all(p[4]['star'].get('unavailable') for p in found) != s_unavailable:
                self.diffs.append((d.file, inh[0].line if inh else d.line, q, f'conformance to {name}',
                                   'unavailable' if s_unavailable else 'declared (available)',
                                   'declared unavailable (@available(*, unavailable) extension ' + q + ': ' + name + ')'
                                   if not s_unavailable else 'available'))
                continue
            best = None
            for p in found:
                diffs = []
                if p[3] != s_where:
                    diffs.append(('conditions', ', '.join(sorted(s_where)) or '(none)', ', '.join(sorted(p[3])) or '(none)'))
                for s, k in compare_availability(s_avail, p[4]):
                    diffs.append(('availability', s, k))
                if best is None or len(diffs) < len(best):
                    best = diffs
            for aspect, s, k in best:
                self.diffs.append((d.file, inh[0].line if inh else d.line, q, f'conformance to {name}: {aspect}', s, k))

    def compare_unavailable_conformances(self, stub_decls):
        """A @frozen struct or enum is implicitly Sendable when its stored properties are; the
        SDK stops that with `@available(*, unavailable) extension T: Sendable {}`. A @frozen stub
        type the SDK does that for must say so too, or the stub's type is Sendable where Apple's
        is not."""
        for d in walk_all(stub_decls):
            if d.kind not in ('struct', 'enum') or 'frozen' not in d.attr_names():
                continue
            q = (d.owner + '.' if d.owner else '') + d.name
            sdk_decls = self.sdk_type_decls(q)
            # a Sendable the type declares elsewhere wins over the unavailable extension (the
            # 17.4 SDK has both for Image; the compiler takes the available one)
            if any('Sendable' in {canon(strip_conformance_attrs(x), Ctx(side)) for x in p.inherits}
                   and not decl_availability(p.attrs)['star'].get('unavailable') for side, p in sdk_decls):
                continue
            for side, p in sdk_decls:
                if p.kind != 'extension' or not decl_availability(p.attrs)['star'].get('unavailable'):
                    continue
                names = {canon(strip_conformance_attrs(x), Ctx(side)) for x in p.inherits}
                if 'Sendable' not in names:
                    continue
                stub_says = None
                for e in [self.stub.primary(q)] + self.stub.types.get(q, {}).get('exts', []):
                    if e is None:
                        continue
                    if 'Sendable' in {canon(strip_conformance_attrs(x), Ctx(self.stub)) for x in e.inherits}:
                        stub_says = 'unavailable' if decl_availability(e.attrs)['star'].get('unavailable') else 'available'
                if stub_says is None:
                    self.diffs.append((d.file, d.line, q, 'conformance to Sendable',
                                       stub_says or 'not declared (so implied by @frozen)',
                                       'unavailable (@available(*, unavailable) extension ' + q + ': Sendable)'))

    def compare_protocol_requirements(self, stub_decls):
        for d in walk_all(stub_decls):
            if d.kind != 'protocol':
                continue
            q = (d.owner + '.' if d.owner else '') + d.name
            side, entry = self.sdk_type_entry(q)
            if entry is None or entry['primary'] is None or entry['primary'].kind != 'protocol':
                continue
            mine = {(m.name, label_sig(m)) for m in d.members}
            defaults = set()
            for ext in entry['exts']:
                defaults |= {(m.name, label_sig(m)) for m in ext.members}
            for r in entry['primary'].members:
                if r.kind in ('associatedtype', 'typealias'):
                    continue
                key = (r.name, label_sig(r))
                if key not in mine and key not in defaults:
                    self.diffs.append((d.file, d.line, q, f'requirement {r.name}{label_sig(r)}',
                                       'not declared', 'required, with no default implementation'))


def scope_ext(ext, side):
    fake = Decl('struct', ext.owner.split('.')[-1], ext.line, ext.file, ext.origin)
    fake.owner = '.'.join(ext.owner.split('.')[:-1])
    p = side.primary(ext.owner) or (side.other.primary(ext.owner) if side.other else None)
    fake.generics = p.generics if p is not None else None
    if p is not None and p.kind == 'protocol':
        fake.kind = 'protocol'
    return scope(fake, side, include_self=True)


def strip_conformance_attrs(toks):
    out, i = [], 0
    while i < len(toks):
        if toks[i].is_('@') and i + 1 < len(toks) and toks[i + 1].v in ('unchecked', 'preconcurrency', 'retroactive'):
            i += 2
            continue
        out.append(toks[i])
        i += 1
    return out


def walk_all(decls):
    for d in decls:
        yield d
        yield from walk_all(d.members)


# ---------------------------------------------------------------------------------------------
# The SDK's C modules, as the compiler imports them

def synthesize(modules, sdk, resource_dir, cache_root):
    """Paths of the synthesized Swift interfaces of the SDK's C `modules`, or (None, reason)."""
    tool = shutil.which('swift-synthesize-interface') or (
        '/opt/swift/usr/bin/swift-synthesize-interface' if os.path.exists('/opt/swift/usr/bin/swift-synthesize-interface') else None)
    if tool is None:
        return None, 'swift-synthesize-interface is not on PATH (it ships with Swift 6.1 and later)'
    if not os.path.isdir(os.path.join(resource_dir, 'clang')):
        return None, (f'no resource dir at {resource_dir} (the toolchain resource dir of '
                      '../shared/apple-sdk/setup.sh: clang/, shims/ only; pass --resource-dir)')
    try:
        version = subprocess.run([tool.replace('swift-synthesize-interface', 'swiftc'), '--version'],
                                 capture_output=True, text=True).stdout
    except OSError:
        version = ''
    stamp = os.path.realpath(sdk) + version
    for rel in ('usr/include', 'System/Library/Frameworks/Network.framework/Headers'):
        p = os.path.join(sdk, rel)
        if os.path.exists(p):
            stamp += str(os.stat(p).st_mtime)
    key = hashlib.sha1(stamp.encode()).hexdigest()[:16]
    cache = os.path.join(cache_root, key)
    os.makedirs(cache, exist_ok=True)
    out = {}
    for module in modules:
        dest = os.path.join(cache, module + '.swift')
        if not os.path.exists(dest) or os.path.getsize(dest) == 0:
            print(f'(synthesizing the Swift interface of the SDK\'s C module {module}, cached in {cache}; '
                  'about a minute the first time)', file=sys.stderr, flush=True)
            cmd = [tool, '-module-name', module, '-include-submodules', '-print-fully-qualified-types',
                   '-target', TARGET, '-sdk', sdk, '-resource-dir', resource_dir,
                   '-module-cache-path', os.path.join(cache, 'modcache'), '-o', dest + '.tmp']
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(dest + '.tmp'):
                return None, f'swift-synthesize-interface failed for {module}: {(r.stderr or r.stdout).strip()[:500]}'
            os.replace(dest + '.tmp', dest)
        out[module] = dest
    # the interfaces are what is kept (a few MB); the modules built to print them are not (100 MB)
    shutil.rmtree(os.path.join(cache, 'modcache'), ignore_errors=True)
    return out, None


# ---------------------------------------------------------------------------------------------

def interface(sdk, module):
    if module == 'Darwin':
        return os.path.join(sdk, 'usr/lib/swift/Darwin.swiftmodule/arm64-apple-ios.swiftinterface')
    return os.path.join(sdk, f'System/Library/Frameworks/{module}.framework/Modules/{module}.swiftmodule/arm64-apple-ios.swiftinterface')


def dump(path):
    origin = 'stub' if path.endswith('.swift') and 'apple-stubs' in path else 'swift'
    for d in walk_all(parse_file(path, origin)):
        depth = 0
        p = d.parent
        while p is not None:
            depth += 1
            p = p.parent
        extra = []
        if d.params is not None:
            extra.append('(' + ', '.join(f'{p.label or "_"}: {text_of(p.type)}' for p in d.params) + ')')
        if d.result:
            extra.append('-> ' + text_of(d.result))
        if d.type:
            extra.append(': ' + text_of(d.type))
        if d.accessors:
            extra.append(show_accessors(d))
        if d.inherits:
            extra.append(': ' + ', '.join(text_of(x) for x in d.inherits))
        if d.where:
            extra.append('where ' + ', '.join(text_of(x) for x in d.where))
        print(f'{d.line:6} ' + '  ' * depth + f'{" ".join(d.mods)} {d.kind} {d.name} ' + ' '.join(extra))


# Declarations that Xcode 16 changed and that ../shared/apple-sdk's backport SDK does not carry
# (it backports only what NetPath's own sources need): the stub follows Apple's current
# declaration, as Apple's documentation gives it. Each entry is (stub file, declaration,
# aspect, what the stub says, what the 17.4 SDK says, why); such a line is reported as
# newer than the SDK, not as a difference. Keep this list short and sourced.
NEWER_THAN_THE_SDK = [
    ('SwiftUI.swift', 'App', 'isolation', '@MainActor @preconcurrency', '(none)',
     'Xcode 16: developer.apple.com/documentation/swiftui/app declares @MainActor @preconcurrency '
     'protocol App; without it the README\'s App example is rejected (a main-actor default value)'),
    ('SwiftUI.swift', 'Scene', 'isolation', '@MainActor @preconcurrency', '(none)',
     'Xcode 16: developer.apple.com/documentation/swiftui/scene declares @MainActor @preconcurrency '
     'protocol Scene, as App'),
]


def main(argv):
    ap = argparse.ArgumentParser(description='Compare scripts/apple-stubs with the real Apple SDK.')
    ap.add_argument('sdk', nargs='?', default=os.environ.get('APPLESDK_SDK') or DEFAULT_SDK)
    ap.add_argument('--resource-dir')
    ap.add_argument('--cache', default=os.environ.get('COMPARE_APPLE_STUBS_CACHE')
                    or os.path.join(os.environ.get('TMPDIR', '/tmp'), 'compare-apple-stubs'))
    ap.add_argument('--stubs', default=STUB_DIR)
    ap.add_argument('--dump')
    args = ap.parse_args(argv)
    if args.dump:
        dump(args.dump)
        return 0
    sdk = args.sdk
    if not os.path.isdir(sdk) or not os.path.exists(interface(sdk, 'Network')):
        print(f'compare-apple-stubs: no Apple SDK at {sdk} (set APPLESDK_SDK or pass the .sdk folder; '
              'lay it out with ../shared/apple-sdk/setup.sh, see its README). Skipped.', file=sys.stderr)
        return 77
    resource_dir = args.resource_dir or os.path.join(os.path.dirname(os.path.abspath(sdk)), 'resource')
    print(f'Comparing {args.stubs} with {sdk} ({TARGET})')

    synthesized, why_not = synthesize(['Darwin', 'Network', 'dnssd'], sdk, resource_dir, args.cache)
    clang = {}
    if synthesized:
        for module, path in synthesized.items():
            clang[module] = parse_file(path, 'clang', f'{module} (C, synthesized)')
    darwin_overlay = parse_file(interface(sdk, 'Darwin'), 'swift')

    plans = [
        ('Network.swift', [parse_file(interface(sdk, 'Network'), 'swift')],
         [clang.get('Network', []), clang.get('dnssd', []), darwin_overlay, clang.get('Darwin', [])]),
        ('Combine.swift', [parse_file(interface(sdk, 'Combine'), 'swift')], []),
        # Combine is read for the refinements of its protocols (ObservableObject, ...)
        ('SwiftUI.swift', [parse_file(interface(sdk, 'SwiftUI'), 'swift')],
         [parse_file(interface(sdk, 'Combine'), 'swift')]),
        ('Darwin.swift', [darwin_overlay], [clang.get('Darwin', [])]),
    ]
    all_diffs, compared, skipped = [], 0, []
    for stub_name, primary, secondary in plans:
        stub_path = os.path.join(args.stubs, stub_name)
        if not os.path.exists(stub_path):
            continue
        if stub_name == 'Darwin.swift' and not synthesized:
            skipped.append(f'{stub_name}: not compared: {why_not}')
            continue
        stub_decls = parse_file(stub_path, 'stub')
        stub = Side('stub', [stub_decls])
        # the module itself first, then what else the stub's names may come from
        sides = [Side('SDK', [lst]) for lst in primary + secondary if lst]
        for side in sides:
            side.other = stub
            side.peers = sides
        stub.other = sides[0]
        cmp = Comparer(stub, sides)
        cmp.run(stub_decls)
        cmp.compare_protocol_requirements(stub_decls)
        cmp.compare_unavailable_conformances(stub_decls)
        if stub_name == 'Network.swift' and not synthesized:
            skipped.append(f'{stub_name}: C names (OS_nw_endpoint, nw_endpoint_t, DNSServiceErrorType, '
                           f'OSStatus) compared with nothing: {why_not}')
        all_diffs += cmp.diffs
        compared += cmp.compared
    seen, newer = set(), set()
    for file, line, what, aspect, s, k in sorted(all_diffs, key=lambda x: (x[0], x[1])):
        key = (file, line, what, aspect, s, k)
        if key in seen or key in newer:
            continue
        known = [why for (f, w, a, ss, kk, why) in NEWER_THAN_THE_SDK if (f, w, a, ss, kk) == (file, what, aspect, s, k)]
        if known:
            newer.add(key)
            print(f'{file}:{line}: {what}: {aspect}: newer than the SDK (stub says {s}, SDK says {k}): {known[0]}')
            continue
        seen.add(key)
        print(f'{file}:{line}: {what}: {aspect}: stub says {s}, SDK says {k}')
    for s in skipped:
        print('skipped: ' + s)
    print(f'{len(seen)} difference{"s" if len(seen) != 1 else ""} '
          f'({compared} stub declarations and conformances compared; '
          f'{len(newer)} newer than the SDK, as listed in NEWER_THAN_THE_SDK)')
    return 1 if seen else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
