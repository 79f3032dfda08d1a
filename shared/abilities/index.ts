export * from "./lookup-contract";
export * from "./availability";
export * from "./catalog";
export * from "./lifecycle-command";
export * from "./skill-markdown";
