#!/usr/bin/env node
// Prints sqids_vectors.inc: Sqids ids computed by the npm package `sqids`
// 0.3.0, the implementation crid's codec (src/core/sqids.cpp) must match.
//
//   node test/core/vectors/sqids/make-vectors.js "$(test/harness/npm-package.sh sqids 0.3.0)" \
//       > test/core/vectors/sqids/sqids_vectors.inc
//
// The argument is the installed package's folder (.../node_modules/sqids).
// Only the package computes ids and numbers here; this script picks inputs
// and prints rows. Every blocklist is given explicitly (the package's default
// list is not used). Inputs come from a fixed-seed generator, so every run
// prints the same file. When a check fails the script prints nothing and
// exits non-zero.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const wantedVersion = '0.3.0';
const maxSafe = Number.MAX_SAFE_INTEGER; // npm refuses larger numbers
const defaultAlphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function die(message) {
    process.stderr.write(`make-vectors: ${message}\n`);
    process.exit(1);
}

// The package at `dir`, which must be sqids 0.3.0.
function loadSqids(dir) {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    if (pkg.name !== 'sqids' || pkg.version !== wantedVersion)
        die(`${dir} holds ${pkg.name} ${pkg.version}, not sqids ${wantedVersion}`);
    const main = require.resolve(dir);
    const sha256 = crypto.createHash('sha256').update(fs.readFileSync(main)).digest('hex');
    return { Sqids: require(main).default, file: path.relative(dir, main), sha256 };
}

// splitmix64 with a fixed seed: the same inputs on every run.
const mask64 = (1n << 64n) - 1n;
let seed = 0x5eed5eed5eedn;
function next64() {
    seed = (seed + 0x9e3779b97f4a7c15n) & mask64;
    let z = seed;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask64;
    return z ^ (z >> 31n);
}
const below = (n) => Number(next64() % BigInt(n));
// A number of any size npm takes, small ones as often as large ones.
function drawNumber() {
    const limits = [10, 100, 1 << 16, 2 ** 32, maxSafe + 1];
    return below(limits[below(limits.length)]);
}
const drawList = (size) => Array.from({ length: size }, drawNumber);

// A C++ string literal of the text's UTF-8 bytes.
function cString(text) {
    let out = '"';
    for (const b of Buffer.from(text, 'utf8')) {
        const c = String.fromCharCode(b);
        if (c === '"' || c === '\\') out += '\\' + c;
        else if (b >= 0x20 && b <= 0x7e) out += c;
        else out += '\\' + b.toString(8).padStart(3, '0');
    }
    return out + '"';
}

const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

// Options: {alphabet, minLength, words}; the codec is cached by options.
const codecs = new Map();
let Sqids;
function codec(o) {
    const key = JSON.stringify(o);
    if (!codecs.has(key))
        codecs.set(key, new Sqids({ alphabet: o.alphabet, minLength: o.minLength, blocklist: new Set(o.words) }));
    return codecs.get(key);
}

// Rows and the comments between them, printed at the end.
const rows = [];
const comment = (text) => rows.push({ text });
const push = (kind, o, numbers, id, note) => rows.push({ kind, o, numbers, id, note });

// Text quoted for a comment (JSON's quoting: a comment line of C++ must not
// end with a backslash, which would join the next line to it).
const q = (text) => JSON.stringify(text);

function format(row) {
    if (row.text) return `// ${row.text}`;
    const { kind, o, numbers, id, note } = row;
    if (note && /[\\\n]$/.test(note)) die(`a comment would end with a backslash: ${note}`);
    const words = '{' + o.words.map(cString).join(', ') + '}';
    return `{Kind::${kind}, ${cString(o.alphabet)}, ${o.minLength}, ${words}, {${numbers.join(', ')}}, ` +
        `${id === null ? 'nullptr' : cString(id)}},` + (note ? ` // ${note}` : '');
}

// The id npm makes of the numbers, checked to decode back to them.
function encodeRow(o, numbers, note) {
    const id = codec(o).encode(numbers);
    if (!sameList(codec(o).decode(id), numbers)) die(`npm does not decode its ${id} to [${numbers}]`);
    push('encode', o, numbers, id, note);
    return id;
}

// npm's numbers of a text that is not npm's id of them; false when the text
// is npm's id after all, or a number is too large to trust (npm's arithmetic
// is exact only up to 2^53 - 1).
function decodeRow(o, text, note) {
    const numbers = codec(o).decode(text);
    if (numbers.some((v) => v > maxSafe)) return false;
    if (codec(o).encode(numbers) === text) return false;
    push('decode', o, numbers, text, note);
    return true;
}

// Numbers npm refuses to encode: every re-generation is blocked.
function blockedRow(o, numbers, note) {
    try {
        codec(o).encode(numbers);
    } catch (e) {
        if (!/max attempts/.test(e.message)) die(`unexpected error from npm: ${e.message}`);
        push('blocked', o, numbers, null, note);
        return;
    }
    die(`npm encoded [${numbers}] although every id should be blocked`);
}

// Fixed lists around the edges, then drawn lists of 1 to 5 numbers.
function encodeRows(o, drawn) {
    const n = o.alphabet.length;
    const edges = [[0], [1], [n - 2], [n - 1], [n], [(n - 1) ** 2], [2 ** 31 - 1], [2 ** 32], [maxSafe - 1], [maxSafe],
        [0, 0], [1, 2, 3], [0, 0, 0, 0, 0], [maxSafe, 0, maxSafe], [maxSafe, maxSafe, maxSafe, maxSafe, maxSafe]];
    for (const numbers of edges) encodeRow(o, numbers);
    for (let i = 0; i < drawn; ++i) encodeRow(o, drawList(1 + (i % 5)));
}

// Texts npm decodes that are not npm's ids: a character outside the
// alphabet, the first character alone, and ids changed one character at a
// time (the numbers then differ, or padding, junk or a leading zero digit
// spells the same numbers another way).
function decodeRows(o, wanted) {
    const s = codec(o);
    const id = s.encode([7, 4096, 1]);
    const outside = [...'!~ -_é'].find((c) => !o.alphabet.includes(c));
    decodeRow(o, id + outside, `${q(outside)} is not in the alphabet`);
    decodeRow(o, id.slice(0, 1), 'the first character alone');
    const changes = [
        [(t, i, c) => t + c, (t, i, c) => `${q(c)} appended to ${q(t)}`],
        [(t, i, c) => t.slice(0, i) + c + t.slice(i), (t, i, c) => `${q(c)} inserted at ${i + 1} of ${q(t)}`],
        [(t, i, c) => t.slice(0, i) + c + t.slice(i + 1), (t, i, c) => `${q(c)} at ${i + 1} of ${q(t)}`],
        [(t, i) => t.slice(0, i) + t.slice(i + 1), (t, i) => `character ${i + 1} of ${q(t)} dropped`],
    ];
    for (let made = 0, tries = 0; made < wanted && tries < 1000; ++tries) {
        const base = s.encode(drawList(1 + below(3)));
        const [change, note] = changes[below(changes.length)];
        const i = below(base.length), c = o.alphabet[below(o.alphabet.length)];
        if (decodeRow(o, change(base, i, c), note(base, i, c))) ++made;
    }
}

// Blocklist words made from ids npm makes without them, so that the rows
// below re-generate: a 3-character id blocks exactly itself (given in upper
// case: npm lower-cases words), a 4-letter run blocks every id that holds
// it, a 4-character start with a digit blocks ids that start (or end) with
// it, and a word blocking the second try forces a third. The numbers each
// word was made for are returned with the words.
function blockingWords() {
    const plain = codec({ alphabet: defaultAlphabet, minLength: 0, words: [] });
    const words = [], numbers = [];
    const find = (test) => {
        for (let i = 0; i < 1e5; ++i) {
            const v = i < 1000 ? i : drawNumber(); // short ids first
            const word = test(plain.encode([v]).toLowerCase());
            if (word) return [word, v];
        }
        die('no id gives a blocklist word');
    };
    const add = ([word, v]) => {
        words.push(word);
        numbers.push(v);
    };
    add(find((id) => id.length === 3 && /[a-z]/.test(id) && id.toUpperCase()));
    add(find((id) => /[a-z]{4}/.exec(id.slice(1, -1))?.[0]));
    add(find((id) => id.length > 5 && /^.{0,3}\d/.test(id) && id.slice(0, 4)));
    // The id of `numbers[1]` under the words so far, blocked again.
    const again = codec({ alphabet: defaultAlphabet, minLength: 0, words: [...words] }).encode([numbers[1]]);
    words.push(again.toLowerCase());
    return { words, numbers };
}

// Words npm drops: too short, a character outside the alphabet, a
// non-ASCII letter. And the one non-ASCII character npm keeps: the Kelvin
// sign, which JavaScript lower-cases to "k".
function droppedAndKelvinWords(o) {
    const plain = codec({ ...o, words: [] });
    for (let i = 0; i < 1e5; ++i) {
        const v = drawNumber();
        const id = plain.encode([v]);
        const run = /[a-z]*k[a-z]*/.exec(id.slice(1, -1).toLowerCase());
        if (run && run[0].length >= 4)
            return { words: ['ab', 'a!b!', 'h\u00e9llo', run[0].replace('k', '\u212a')], v };
    }
    die('no id holds a k');
}

// How many encode rows from index `from` on have another id than the same
// numbers without a blocklist.
function regenerated(o, from) {
    const plain = codec({ ...o, words: [] });
    return rows.slice(from).filter((r) => r.kind === 'encode' && plain.encode(r.numbers) !== r.id).length;
}

function blocklistRows() {
    const { words, numbers } = blockingWords();
    const o = { alphabet: defaultAlphabet, minLength: 0, words };
    const plain = (v) => codec({ ...o, words: [] }).encode([v]);
    let from = rows.length;
    comment('default alphabet, a blocklist made to collide with ids of the empty blocklist');
    const notes = ['a 3-character id blocked', 'a 4-letter word inside the id, and the next try blocked by the last word',
        'a word with a digit starts the id'];
    for (let i = 0; i < 3; ++i) encodeRow(o, [numbers[i]], `${notes[i]} (without blocklist: ${plain(numbers[i])})`);
    encodeRow(o, numbers);
    for (let i = 0; i < 40; ++i) encodeRow(o, drawList(1 + (i % 3)));
    if (regenerated(o, from) < numbers.length) die('the blocklist did not change the ids it was made for');
    if (codec(o).blocklist.size !== words.length) die('npm dropped a word made to be kept');

    const k = droppedAndKelvinWords({ alphabet: defaultAlphabet, minLength: 0 });
    const ok = { alphabet: defaultAlphabet, minLength: 0, words: k.words };
    from = rows.length;
    comment('words npm drops (short, outside the alphabet, non-ASCII) and the Kelvin sign it keeps as "k"');
    encodeRow(ok, [k.v], 'blocked by the Kelvin-sign word');
    if (regenerated(ok, from) !== 1 || codec(ok).blocklist.size !== 1) die('the Kelvin-sign word did not block');

    // Every 3-letter word of "abc": ids of 3 characters are all blocked,
    // longer ones (more numbers, larger numbers) are not.
    const all = [];
    for (const a of 'abc') for (const b of 'abc') for (const c of 'abc') all.push(a + b + c);
    const abc = { alphabet: 'abc', minLength: 3, words: all };
    comment('"abc", every 3-letter word blocked');
    blockedRow(abc, [0], 'every re-generation is blocked');
    blockedRow(abc, [1], 'every re-generation is blocked');
    encodeRow(abc, [0, 0], 'longer than 3: not blocked by 3-letter words');
    encodeRow(abc, [5]);
    // The 3-character ids of 0 and 2 blocked: both re-generate.
    const abcPlain = codec({ alphabet: 'abc', minLength: 3, words: [] });
    const abc2 = { alphabet: 'abc', minLength: 3, words: [abcPlain.encode([0]), abcPlain.encode([2])] };
    from = rows.length;
    comment('"abc", some 3-letter words blocked');
    for (let v = 0; v < 6; ++v) encodeRow(abc2, [v]);
    if (regenerated(abc2, from) === 0) die('no "abc" id was re-generated');
    // An upper-case alphabet: ids are matched lower-cased, against words
    // given in either case.
    const upper = { alphabet: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', minLength: 0, words: [] };
    const bw = codec(upper).encode([123456789]).toLowerCase();
    const up = { ...upper, words: [bw.slice(0, 4), bw.slice(-5).toUpperCase()] };
    from = rows.length;
    comment('upper-case alphabet, its words in either case');
    encodeRow(up, [123456789], 'the id without blocklist starts with a word');
    for (let i = 0; i < 10; ++i) encodeRow(up, drawList(1 + (i % 3)));
    if (regenerated(up, from) === 0) die('the upper-case alphabet was not re-generated');
}

function main() {
    if (process.argv.length !== 3) {
        process.stderr.write('usage: node make-vectors.js PACKAGE_DIR   (the folder of the installed sqids package)\n');
        process.exit(2);
    }
    const dir = path.resolve(process.argv[2]);
    const loaded = loadSqids(dir);
    Sqids = loaded.Sqids;

    const configs = [
        [defaultAlphabet, 0, 60], [defaultAlphabet, 10, 20], [defaultAlphabet, 30, 20], [defaultAlphabet, 255, 8],
        ['abc', 0, 15], ['abc', 5, 10],
        ['0123456789abcdefghijklmnopqrstuvwxyz', 0, 20], ['0123456789abcdefghijklmnopqrstuvwxyz', 8, 10],
        ['abcdefghijklmnopqrstuvwxyz0123456789-_', 0, 20], ['abcdefghijklmnopqrstuvwxyz0123456789-_', 16, 10],
    ];
    let printable = '';
    for (let c = 0x21; c <= 0x7e; ++c) printable += String.fromCharCode(c);
    configs.push([printable, 0, 15], [printable, 40, 10]);
    for (const [alphabet, minLength, drawn] of configs) {
        const o = { alphabet, minLength, words: [] };
        comment(`${q(alphabet)}, min_length ${minLength}, empty blocklist`);
        encodeRow(o, [], 'no numbers');
        encodeRows(o, drawn);
        comment(`${q(alphabet)}, min_length ${minLength}: texts that are not ids`);
        decodeRows(o, 6);
    }
    // A padded id read without min_length: the padding is skipped.
    const padded = codec({ alphabet: defaultAlphabet, minLength: 30, words: [] }).encode([1, 2, 3]);
    comment('an id padded to 30 read by a codec without min_length');
    decodeRow({ alphabet: defaultAlphabet, minLength: 0, words: [] }, padded, 'padded to 30');
    blocklistRows();

    const count = rows.filter((r) => r.kind).length;
    const kinds = ['encode', 'decode', 'blocked'].map((k) => rows.filter((r) => r.kind === k).length);
    process.stdout.write(`// Generated by test/core/vectors/sqids/make-vectors.js; do not edit. Made with:
//   node test/core/vectors/sqids/make-vectors.js "$(test/harness/npm-package.sh sqids ${wantedVersion})" > test/core/vectors/sqids/sqids_vectors.inc
// from the npm package sqids ${wantedVersion} (its ${loaded.file} has sha256
//   ${loaded.sha256}).
// README.md says what the rows are.
//
// ${count} rows of {kind, alphabet, min_length, blocklist, numbers, id}:
//   Kind::encode   npm encodes the numbers as id, and decodes id back to them (${kinds[0]} rows);
//   Kind::decode   npm decodes id, which is not its spelling of them, to the numbers (${kinds[1]} rows);
//   Kind::blocked  npm refuses to encode the numbers: every re-generation is blocked (${kinds[2]} rows).
${rows.map(format).join('\n')}
`);
}

main();
