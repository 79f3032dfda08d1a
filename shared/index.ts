/**
 * The one barrel of our contracts (R11.2-01): every folder's exports, no identifier twice.
 * `export *` drops a name two folders both export, so shared/barrel.test.ts checks that every
 * export of every file arrives here unchanged.
 */
export * from "./common";
export * from "./learning";
export * from "./abilities";
export * from "./capabilities";
export * from "./skills";
export * from "./observation";
export * from "./execution";
