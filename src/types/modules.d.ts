// Libraries that ship no type declarations: the parts of their API we use.
declare module 'rdf-canonize' {
  const canonize: {
    canonize(input: unknown, options: { algorithm: string; maxWorkFactor?: number; signal?: AbortSignal; inputFormat?: string; format?: string }): Promise<string>;
  };
  export default canonize;
}
