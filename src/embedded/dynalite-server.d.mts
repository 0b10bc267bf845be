export declare const startDynalite: (
  path: string,
  port: number,
  access: { readonly header: string; readonly token: string },
) => Promise<{ port: number; close: () => Promise<void> }>;
