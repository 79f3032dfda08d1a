// Learning contracts (§0C). Part 3's LearningEntryPointSchema is superseded and must never be
// exported from here (§0C.19, R11.2-03).
export * from "./learn-session";
export * from "./state-machine";
export * from "./create-learn-session";
export * from "./pending-ability-ui-state";
export * from "./runtime-snapshot";
export * from "./observation-scope-runtime";
export * from "./semantic-workflow-interpretation";
export * from "./checkpoint-receipt";
export * from "./validation-run";
export * from "./proposal";
export * from "./test-policy";
export * from "./lifecycle-event";
export * from "./receipts";
export * from "./observation-adapter";
export * from "./observed-action";
export * from "./boundary";
export * from "./route-contracts";
export * from "./read-models";
export * from "./compat-aliases";
export * from "./workflow-graph";
export * from "./session-requests";
export * from "./skill-delta";
export * from "./success-conditions";
export * from "./proposal-tests";
export * from "./coaching";
export * from "./practice";
