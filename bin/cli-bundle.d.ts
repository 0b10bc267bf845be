/** The types of bin/cli-bundle.js, which runs before tsx and so is JavaScript. */
export declare const BUNDLE_DIR: URL;
export declare const BUNDLE_ENTRY: string;
export declare const BUNDLE_INPUTS: string;
export declare const freshBundle: (dir?: URL) => URL | undefined;
