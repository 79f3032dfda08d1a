export * from "./proposal";
export * from "./frontmatter";
export * from "./import-state";
export * from "./validation-report";
export * from "./import";
export * from "./agent-skills-format";
export * from "./import-bundle";
export * from "./skill-folder";
