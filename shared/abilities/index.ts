export * from "./lookup-contract";
export * from "./availability";
export * from "./catalog";
export * from "./baseline-scorer";
export * from "./lifecycle-command";
export * from "./baseline-index";
