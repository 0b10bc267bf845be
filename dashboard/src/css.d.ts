/**
 * The page's stylesheet, imported by main.tsx for its side effect: the build (dashboard/build.ts)
 * bundles it into the page's CSS file. The type checker is told it is there, since it checks
 * that a side-effect import names a module.
 */
declare module "*.css";
