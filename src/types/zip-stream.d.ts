// zip-stream ships no types; this is the part of its API the xlsx writer uses.
declare module "zip-stream" {
  import type { Readable, Transform } from "node:stream";
  import type { ZlibOptions } from "node:zlib";

  interface ZipStreamOptions {
    zlib?: ZlibOptions;
  }

  interface EntryData {
    name: string;
    /** Stored as it is rather than deflated. */
    store?: boolean;
  }

  /** A zip archive as a stream; entries are added one at a time, each after the last is done. */
  export default class ZipStream extends Transform {
    constructor(options?: ZipStreamOptions);
    entry(
      source: Buffer | string | Readable,
      data: EntryData,
      callback: (error?: Error | null) => void,
    ): this;
    finalize(): void;
  }
}
