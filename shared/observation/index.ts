export * from "./capture-protocol";
export * from "./masking-rules";
export * from "./page-snapshot";
export * from "./site-allowlist";
export * from "./command-masking";
export * from "./desktop-detail";
export * from "./typed-value-scrubber";
export * from "./panel-messages";
