import { assertMemorySegment } from "../memory/memory-paths";

/**
 * Where an installed imported skill keeps its archive byte for byte in ELNOR_MEMORY
 * (`system/skills/imported/<name>`); the import flow writes it, deleting the ability removes it.
 */
export const importedSkillFolder = (skillName: string): string => `system/skills/imported/${assertMemorySegment(skillName)}`;
