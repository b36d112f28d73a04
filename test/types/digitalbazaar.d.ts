// digitalbazaar's Data Integrity libraries ship no type declarations: the parts test/trust/jsonld-interop.test.ts uses.
declare module 'jsonld-signatures' {
  type DocumentLoader = (url: string) => Promise<{ document: unknown; documentUrl: string; contextUrl: null }>;
  interface Options { suite: unknown; purpose: unknown; documentLoader: DocumentLoader }
  const jsigs: {
    sign(document: object, options: Options): Promise<Record<string, unknown>>;
    verify(document: object, options: Options): Promise<{ verified: boolean; error?: unknown }>;
    purposes: { AssertionProofPurpose: new () => unknown };
  };
  export default jsigs;
}
declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(options: { signer?: unknown; cryptosuite: unknown; date?: string });
  }
}
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: unknown;
}
declare module '@digitalbazaar/ed25519-multikey' {
  interface KeyPair {
    id: string;
    controller: string;
    signer(): unknown;
    export(options: { publicKey: boolean; includeContext?: boolean }): Promise<Record<string, unknown>>;
  }
  export function from(key: object): Promise<KeyPair>;
}
declare module '@digitalbazaar/multikey-context' {
  export const contexts: Map<string, unknown>;
}
