export declare const startDynalite: (
  path: string,
  port: number,
) => Promise<{ port: number; close: () => Promise<void> }>;
