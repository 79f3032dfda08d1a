export * from "./control-surface";
export * from "./capability-manifest";
export * from "./capability-metadata";
export * from "./bridge-entry";
export * from "./capability-use-receipt";
