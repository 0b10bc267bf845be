/** `require` as dynalite's own folder resolves it: the LevelDB classes it runs on. */
export declare const fromDynalite: () => NodeJS.Require;

export declare const startDynalite: (
  path: string,
  port: number,
  access: { readonly header: string; readonly token: string },
) => Promise<{ address: string; port: number; close: () => Promise<void> }>;
