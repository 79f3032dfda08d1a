/** A run's dispatch id as the agent issues it (the run contract and a trace seed both name runs by it). */
export const DISPATCH_ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
