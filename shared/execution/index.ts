// Runs of installed abilities (issue #21).
export * from "./run-contract";
