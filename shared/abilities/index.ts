export * from "./lookup";
export * from "./availability";
export * from "./catalog";
export * from "./ability-lookup";
export * from "./lifecycle-command";
export * from "./lookup-index";
