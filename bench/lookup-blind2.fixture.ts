import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A second blind evaluation set for ability lookup (issue #15), written at 16:40Z on 2026-11-24 by the
 * lead engineer while the fifth round's matcher was being built in another branch, without reading
 * that round's work, and committed to `main` before any matcher ran on it. Sixteen abilities of kinds
 * no earlier set has (a thermostat, a ride, a school portal, a garage, a vet, …), four requests each
 * worded as people say them (the circumstance instead of the action, other verbs and nouns, names,
 * numbers and brands in the request), looked up among every set's abilities; and twelve requests that
 * no ability of any set does.
 *
 * Never tune on it: `bench/lookup-blind.ts` prints its figures only, never its misses.
 */
export const BLIND2_ABILITIES: readonly EvalAbility[] = [
  {
    id: "home-thermostat",
    goal: "Set the thermostat temperature",
    site: "home.example.com",
    site_title: "Example Home",
    pages: [{ title: "Climate", headings: ["Living room", "Target temperature"] }],
    requests: ["make the house warmer", "turn the heating up to 21 degrees", "it's freezing in here, bump the temperature", "change the thermostat to 68"],
  },
  {
    id: "ride-airport",
    goal: "Request a ride to the airport",
    site: "rides.example.com",
    site_title: "Example Rides",
    pages: [{ title: "Where to?", headings: ["Where to?", "Choose a ride"] }],
    requests: ["get me a cab to the airport", "call an uber to JFK", "I need a taxi to terminal 2", "book a car to the airport for 6am"],
  },
  {
    id: "school-grades",
    goal: "Check my child's grades",
    site: "parents.example.edu",
    site_title: "School Parent Portal",
    pages: [{ title: "Gradebook", headings: ["Gradebook", "Term 1"] }],
    requests: ["how is Emma doing in math", "see my son's report card", "look at my kid's marks this term", "show the latest test scores for my daughter"],
  },
  {
    id: "power-outage",
    goal: "Report a power outage",
    site: "power.example.com",
    site_title: "Example Power – Outages",
    pages: [{ title: "Outages", headings: ["Outage map", "Report an outage"] }],
    requests: [
      "the electricity is out on our street",
      "my lights went off, tell the utility",
      "log a blackout at my address",
      "no power at home since this morning",
    ],
  },
  {
    id: "garage-oil-change",
    goal: "Book an oil change for my car",
    site: "garage.example.com",
    site_title: "Example Auto Care",
    pages: [{ title: "Book a service", headings: ["Choose a service", "Pick a time"] }],
    requests: ["schedule car service", "get my vehicle's oil changed next week", "make a garage appointment for maintenance", "my car is due for a service"],
  },
  {
    id: "homes-save-listing",
    goal: "Save a house listing to my favorites",
    site: "homes.example.com",
    site_title: "Example Homes",
    pages: [{ title: "12 Oak Street", headings: ["12 Oak Street", "Save"] }],
    requests: ["bookmark this apartment", "keep this home for later", "add the 3-bedroom on Oak St to my saved homes", "heart this property"],
  },
  {
    id: "tracker-bug",
    goal: "File a bug report in the issue tracker",
    site: "tracker.example.dev",
    site_title: "Example Tracker",
    pages: [{ title: "New issue", headings: ["New issue", "Steps to reproduce"] }],
    requests: [
      "open an issue about the login crash",
      "log a defect for the checkout page",
      "create a ticket for the broken build",
      "report a bug to the dev team",
    ],
  },
  {
    id: "hr-emergency-contact",
    goal: "Update my emergency contact",
    site: "hr.example.com",
    site_title: "Example HR – Profile",
    pages: [{ title: "Personal details", headings: ["Personal details", "Emergency contacts"] }],
    requests: [
      "change who to call in an emergency",
      "put my wife down as my emergency contact",
      "edit my next of kin details",
      "new emergency phone number for HR",
    ],
  },
  {
    id: "appliance-warranty",
    goal: "Claim a warranty repair for a broken appliance",
    site: "support.example-appliances.com",
    site_title: "Example Appliances Support",
    pages: [{ title: "Warranty service", headings: ["Register a claim", "Your product"] }],
    requests: [
      "my dishwasher stopped working, get it fixed under warranty",
      "request a repair for the fridge",
      "the washer is broken and still covered",
      "start a guarantee claim",
    ],
  },
  {
    id: "stream-watchlist",
    goal: "Add a movie to my watchlist",
    site: "watch.example.tv",
    site_title: "Example TV",
    pages: [{ title: "Dune", headings: ["Dune", "My list"] }],
    requests: ["save this film to watch later", "remember to watch Dune", "put the new thriller on my list", "queue up this show for the weekend"],
  },
  {
    id: "bank-card-pin",
    goal: "Change my debit card PIN",
    site: "bank.example.net",
    site_title: "Example Savings Bank",
    pages: [{ title: "Card services", headings: ["Card services", "Change PIN"] }],
    requests: ["set a new pin for my card", "I forgot my card code, pick a new one", "update the 4-digit number for my bank card", "new pin for the atm"],
  },
  {
    id: "card-limit",
    goal: "Apply for a credit limit increase",
    site: "cards.example.com",
    site_title: "Example Card Services",
    pages: [{ title: "Credit limit", headings: ["Your credit limit", "Request an increase"] }],
    requests: ["raise my card limit", "I need a higher spending limit", "can I get more credit on my visa", "bump up my credit line"],
  },
  {
    id: "vet-visit",
    goal: "Book a vet appointment for my dog",
    site: "vet.example.com",
    site_title: "Example Veterinary Clinic",
    pages: [{ title: "Appointments", headings: ["Book an appointment", "Your pet"] }],
    requests: ["get the puppy vaccinated", "take my cat to the vet on Friday", "schedule a checkup for Rex", "my dog needs to see the animal doctor"],
  },
  {
    id: "county-property-tax",
    goal: "Pay my property tax",
    site: "county.example.gov",
    site_title: "County Treasurer",
    pages: [{ title: "Property tax", headings: ["Property tax", "Make a payment"] }],
    requests: ["settle the house tax bill", "pay the annual real estate tax", "my home tax is due", "send the county its tax payment"],
  },
  {
    id: "shop-gift-card",
    goal: "Redeem a gift card",
    site: "store.example.com",
    site_title: "Example Store – Account",
    pages: [{ title: "Gift cards", headings: ["Gift cards", "Redeem"] }],
    requests: [
      "use the voucher I got for my birthday",
      "add gift card balance to my account",
      "apply a gift certificate",
      "put the $50 card code on my account",
    ],
  },
  {
    id: "expenses-mileage",
    goal: "Log miles driven for work",
    site: "expenses.example.com",
    site_title: "Example Expenses",
    pages: [{ title: "Mileage", headings: ["Mileage", "Add a trip"] }],
    requests: ["claim mileage for the client visit", "add my business kilometres", "enter the drive to the Boston office", "track my work travel distance"],
  },
];

/** Requests no ability of any set does. */
export const BLIND2_UNRELATED: readonly string[] = [
  "what's 15% of 80",
  "how do you spell necessary",
  "sing me a song",
  "what's the capital of australia",
  "explain how photosynthesis works",
  "what should I cook tonight",
  "how many ounces in a cup",
  "flip a coin",
  "who wrote pride and prejudice",
  "is it going to rain this weekend",
  "what does ubiquitous mean",
  "tell me a riddle",
];
