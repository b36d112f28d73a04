import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { UserError } from '../util/errors.ts';

/**
 * Ed25519 keys as W3C Multikey (publicKeyMultibase `z6Mk…`) and did:key. Done with node:crypto and
 * a few lines of base58 rather than @digitalbazaar/ed25519-multikey: that package and its siblings
 * work on JSON-LD credentials and resolve contexts through a document loader, while the crawler
 * holds RDF graphs already parsed (Turtle, RDFa, …); the algorithm itself is small (README.md in
 * this folder says why in full).
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Multicodec varints: ed25519-pub (0xed) and ed25519-priv (0x1300). */
const ED25519_PUB = Buffer.from([0xed, 0x01]);
const ED25519_PRIV = Buffer.from([0x80, 0x26]);
/** DER headers that wrap a raw 32-byte Ed25519 key for node:crypto (RFC 8410). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function base58btcEncode(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i]! << 8;
      digits[i] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '';
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += '1';
  }
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]!];
  return out;
}

/** undefined when `s` holds a character outside the alphabet. */
export function base58btcDecode(s: string): Buffer | undefined {
  const bytes: number[] = [];
  for (const ch of s) {
    let carry = ALPHABET.indexOf(ch);
    if (carry < 0) return undefined;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  let zeros = 0;
  while (s[zeros] === '1') zeros++;
  return Buffer.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}

/** `z` + base58btc: the multibase form Data Integrity uses for keys and proof values. */
export function multibase(bytes: Uint8Array): string {
  return `z${base58btcEncode(bytes)}`;
}

export function fromMultibase(s: string): Buffer | undefined {
  return s.startsWith('z') ? base58btcDecode(s.slice(1)) : undefined;
}

/** The raw 32-byte Ed25519 public key of a `z6Mk…` Multikey, or undefined when it is not one. */
export function publicKeyFromMultibase(s: string): Buffer | undefined {
  // An Ed25519 Multikey is 48 characters; base58 decoding is quadratic, so a long string is not one, unread.
  if (s.length > 64) return undefined;
  const b = fromMultibase(s);
  if (b?.length !== 34 || !b.subarray(0, 2).equals(ED25519_PUB)) return undefined;
  return b.subarray(2);
}

/** Multicodec prefixes (varints) of the public keys did:key names besides Ed25519, to say which a proof gave. */
const OTHER_KEY_TYPES: Array<[prefix: number[], name: string]> = [
  [[0xe7, 0x01], 'secp256k1'],
  [[0xec, 0x01], 'X25519 (a key-agreement key, not a signing key)'],
  [[0xeb, 0x01], 'BLS12-381 G2'],
  [[0x80, 0x24], 'P-256'],
  [[0x81, 0x24], 'P-384'],
  [[0x82, 0x24], 'P-521'],
  [[0x85, 0x24], 'RSA'],
];

/**
 * Why a verification method that is a did:key cannot verify an eddsa-rdfc-2022 proof, or undefined
 * when it can (or is not a did:key: a trust list may map it). Says whether the multibase is broken or
 * the key is of another curve.
 */
export function didKeyProblem(method: string): string | undefined {
  if (!method.startsWith('did:key:')) return undefined;
  if (method.length > 256) return `verification method is a did:key of ${method.length} characters: an Ed25519 did:key is 56 (not decoded)`;
  const shown = method.length > 80 ? `${method.slice(0, 77)}…` : method;
  const m = /^did:key:([^#]*)(?:#(.*))?$/.exec(method)!;
  const id = m[1]!;
  if (m[2] !== undefined && m[2] !== id) return `verification method ${shown}: its fragment is not its key (did:key:K#K)`;
  if (!id.startsWith('z')) return `verification method ${shown}: the key is not multibase base58btc (it must start with z)`;
  const bytes = base58btcDecode(id.slice(1));
  if (!bytes) return `verification method ${shown}: the key is not valid base58btc (characters outside the alphabet, such as 0, O, I or l)`;
  if (bytes.length >= 2 && bytes.subarray(0, 2).equals(ED25519_PUB)) {
    return bytes.length === 34 ? undefined : `verification method ${shown}: an Ed25519 key of ${bytes.length - 2} bytes (an Ed25519 public key is 32)`;
  }
  const other = OTHER_KEY_TYPES.find(([prefix]) => prefix.every((b, i) => bytes[i] === b));
  if (other) return `verification method ${shown} is a ${other[1]} key: eddsa-rdfc-2022 proofs need an Ed25519 key`;
  return `verification method ${shown}: the key's multicodec prefix 0x${bytes.subarray(0, 2).toString('hex')} is not an Ed25519 public key (0xed01)`;
}

export function publicKeyMultibase(raw: Uint8Array): string {
  return multibase(Buffer.concat([ED25519_PUB, raw]));
}

/** `did:key:z6Mk…#z6Mk…`, the verification method a did:key document gives its one key. */
export function didKeyMethod(publicMultibase: string): string {
  return `did:key:${publicMultibase}#${publicMultibase}`;
}

/**
 * The public Multikey a verification method IRI names, when the IRI itself carries it
 * (`did:key:z6Mk…` with or without its fragment). Other IRIs name keys only a trust list can map.
 */
export function multikeyOfMethod(method: string): string | undefined {
  const m = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)(?:#(z[1-9A-HJ-NP-Za-km-z]+))?$/.exec(method);
  if (!m || (m[2] !== undefined && m[2] !== m[1])) return undefined;
  return publicKeyFromMultibase(m[1]!) ? m[1] : undefined;
}

export function publicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** A signing key: its node:crypto object and the Multikey names others verify it by. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKeyMultibase: string;
  /** The verification method written into proofs: did:key unless the key file names another. */
  verificationMethod: string;
}

/** What `sign --generate-key` writes: the Multikey of the vc-di-eddsa examples, with its secret. */
export interface MultikeyFile {
  '@context': string;
  type: 'Multikey';
  id: string;
  controller: string;
  publicKeyMultibase: string;
  secretKeyMultibase: string;
}

export function signingKeyFromSecret(secretKeyMultibase: string, verificationMethod?: string): SigningKey {
  const b = fromMultibase(secretKeyMultibase);
  if (b?.length !== 34 || !b.subarray(0, 2).equals(ED25519_PRIV)) {
    throw new UserError('secretKeyMultibase is not an Ed25519 secret Multikey (z3u2…: multibase base58btc of 0x8026 + a 32-byte seed)');
  }
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, b.subarray(2)]), format: 'der', type: 'pkcs8' });
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
  const pub = publicKeyMultibase(raw);
  return { privateKey, publicKeyMultibase: pub, verificationMethod: verificationMethod ?? didKeyMethod(pub) };
}

export function generateKeyFile(): MultikeyFile {
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  const secretKeyMultibase = multibase(Buffer.concat([ED25519_PRIV, seed]));
  const pub = signingKeyFromSecret(secretKeyMultibase).publicKeyMultibase;
  return {
    '@context': 'https://w3id.org/security/multikey/v1',
    type: 'Multikey',
    id: didKeyMethod(pub),
    controller: `did:key:${pub}`,
    publicKeyMultibase: pub,
    secretKeyMultibase,
  };
}

/** Reads a key file written by `sign --generate-key` (or any Multikey JSON with a secretKeyMultibase). */
export function readSigningKey(file: string): SigningKey {
  let parsed: Partial<MultikeyFile>;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<MultikeyFile>;
  } catch (err) {
    throw new UserError(`cannot read key file ${file}: ${(err as Error).message} (make one with: datamonitor sign --generate-key ${file})`);
  }
  if (typeof parsed.secretKeyMultibase !== 'string') throw new UserError(`key file ${file} has no secretKeyMultibase (make one with: datamonitor sign --generate-key FILE)`);
  const key = signingKeyFromSecret(parsed.secretKeyMultibase, typeof parsed.id === 'string' ? parsed.id : undefined);
  if (typeof parsed.publicKeyMultibase === 'string' && parsed.publicKeyMultibase !== key.publicKeyMultibase) {
    throw new UserError(`key file ${file}: its publicKeyMultibase does not belong to its secretKeyMultibase`);
  }
  return key;
}

/**
 * A trust list: the keys whose proofs count. Each line is a did:key (with or without fragment), a
 * bare publicKeyMultibase, or `METHOD-IRI z6Mk…` mapping a verification method that is not a
 * did:key (an https key document, which datamonitor never fetches) to its key. `#` starts a comment.
 */
export interface TrustList {
  /** The trusted public Multikeys. */
  keys: Set<string>;
  /** Verification method IRIs (not did:key) → their Multikey. */
  methods: Map<string, string>;
}

export function parseTrustList(text: string, source = 'trust list'): TrustList {
  const keys = new Set<string>();
  const methods = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#\s.*$|^#.*$/, '').trim();
    if (!line) return;
    const words = line.split(/\s+/);
    const bad = (): never => {
      throw new UserError(`${source} line ${i + 1}: "${raw.trim()}" is neither a did:key, an Ed25519 publicKeyMultibase (z6Mk…) nor "METHOD-IRI z6Mk…"`);
    };
    if (words.length === 1) {
      const w = words[0]!;
      const key = w.startsWith('did:key:') ? multikeyOfMethod(w) : publicKeyFromMultibase(w) ? w : undefined;
      if (!key) bad();
      keys.add(key!);
    } else if (words.length === 2 && publicKeyFromMultibase(words[1]!)) {
      methods.set(words[0]!, words[1]!);
      keys.add(words[1]!);
    } else bad();
  });
  return { keys, methods };
}

export function readTrustList(file: string): TrustList {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read trust list ${file}: ${(err as Error).message}`);
  }
  return parseTrustList(text, file);
}
