export * from "./error-envelope";
export * from "./error-codes";
export * from "./agent-health";
export * from "./pairing";
export * from "./agent-connection";
export * from "./category";
export * from "./extension-permissions";
export * from "./privacy-facts";
