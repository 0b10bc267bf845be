// ua-parser-js 1.x ships no types; this is the part of its API the touch side uses.
declare module "ua-parser-js" {
  interface UAParserResult {
    os: { name?: string; version?: string };
    device: { vendor?: string; model?: string; type?: string };
  }
  export class UAParser {
    constructor(userAgent?: string);
    getResult(): UAParserResult;
  }
}
