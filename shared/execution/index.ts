// Runs of installed abilities (issue #21), and what the executor reads of a skill the compiler wrote.
export * from "./run-contract";
export * from "./run-schedules";
export * from "./run-notice";
export * from "./run-grants";
export * from "./recorder-flow";
export * from "./checkpoint-plan";
export * from "./sign-in-plan";
export * from "./stored-skill-files";
