import { z } from "zod";

/**
 * Issue #35: what the executor needs to skip a sign-in the browser no longer needs, and to prove it
 * anyway (found by agent/learning/compiler/sign-in.ts, kept in `checkpoints.json`).
 */
export const SignInPlanSchema = z.object({
  /** The steps that sign in: skipped at run time when the browser is already signed in. */
  step_ids: z.array(z.string().min(1).max(80)).max(50),
  username_parameter: z.string().max(80).optional(),
  password_parameter: z.string().min(1).max(80),
  /** The controls that showed the person signed in, by accessible name ("Log out"). */
  signed_in_controls: z.array(z.string().max(200)).max(10),
  /** The page the sign-in led to in the demonstration, opened when the steps are skipped and the browser is elsewhere. */
  signed_in_url: z.string().max(2048).optional(),
});
export type SignInPlan = z.infer<typeof SignInPlanSchema>;

/** Names of controls that end a session: what shows a browser is signed in. */
export const SIGN_OUT_NAME =
  /^\s*(log[\s-]?out|log[\s-]?off|sign[\s-]?out|sign[\s-]?off|abmelden|ausloggen|se d[ée]connecter|d[ée]connexion|cerrar sesi[oó]n|uitloggen|esci)\b/i;
/** Names of controls that open or submit a sign-in form. */
export const SIGN_IN_NAME = /^\s*(log[\s-]?in|sign[\s-]?in|login|signin|anmelden|einloggen|se connecter|connexion|iniciar sesi[oó]n|entrar|accedi|inloggen)\b/i;
