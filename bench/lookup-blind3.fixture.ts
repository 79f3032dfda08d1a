import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A third blind evaluation set for ability lookup (issue #15), written at 19:15Z on 2026-11-24 by the
 * lead engineer before the seventh session's lookup round (a distributional word resource) had run on
 * anything, and committed to `main` before any matcher ran on it. Sixteen abilities of kinds no earlier
 * set has (a salon, a campsite, a transit card, a tax refund, a shelter, a babysitter, …), four requests
 * each worded as people say them (the circumstance instead of the action, other verbs and nouns, brands,
 * names and amounts in the request), looked up among every set's abilities; and twelve requests that no
 * ability of any set does.
 *
 * Never tune on it: `bench/lookup-blind.ts` prints its figures only, never its misses.
 */
export const BLIND3_ABILITIES: readonly EvalAbility[] = [
  {
    id: "salon-haircut",
    goal: "Book a haircut appointment",
    site: "salon.example.com",
    site_title: "Example Salon",
    pages: [{ title: "Book online", headings: ["Choose a stylist", "Pick a time"] }],
    requests: ["I need a trim on Saturday", "get my hair cut next week", "make a booking with a hairdresser", "schedule the barber for Friday afternoon"],
  },
  {
    id: "parks-campsite",
    goal: "Reserve a campsite",
    site: "parks.example.gov",
    site_title: "Example State Parks",
    pages: [{ title: "Camping", headings: ["Find a campground", "Available sites"] }],
    requests: [
      "find us a spot to pitch a tent at the lake in July",
      "book camping for the long weekend",
      "we want to go camping next month, get a site",
      "reserve a pitch for our RV",
    ],
  },
  {
    id: "transit-card",
    goal: "Top up my transit card",
    site: "metro.example.com",
    site_title: "Example Metro",
    pages: [{ title: "My card", headings: ["Card balance", "Add value"] }],
    requests: ["add $20 to my metro card", "put money on my bus pass", "load my Oyster card", "my travel card is empty, refill it"],
  },
  {
    id: "rail-ticket",
    goal: "Buy a train ticket",
    site: "rail.example.com",
    site_title: "Example Rail",
    pages: [{ title: "Journey planner", headings: ["Plan your journey", "Choose your tickets"] }],
    requests: [
      "get me a seat on the 8:15 to Boston",
      "I need to go to Manchester by rail tomorrow",
      "purchase a return to Edinburgh",
      "book the train to Lyon",
    ],
  },
  {
    id: "tax-refund-status",
    goal: "Check the status of my tax refund",
    site: "tax.example.gov",
    site_title: "Example Revenue Service",
    pages: [{ title: "Where's my refund", headings: ["Refund status"] }],
    requests: [
      "has my tax return money been sent yet",
      "when will I get my tax rebate",
      "is the IRS paying me back this year",
      "what happened to my refund from the taxman",
    ],
  },
  {
    id: "clinic-records",
    goal: "Request a copy of my medical records",
    site: "clinic.example.org",
    site_title: "Example Clinic – Patient Portal",
    pages: [{ title: "Records requests", headings: ["Request your records"] }],
    requests: [
      "I need my health file sent to my new doctor",
      "get copies of my hospital records",
      "ask the clinic for my patient history",
      "obtain my chart from the practice",
    ],
  },
  {
    id: "wildlife-fishing",
    goal: "Buy a fishing license",
    site: "wildlife.example.gov",
    site_title: "Example Fish and Wildlife",
    pages: [{ title: "Licenses", headings: ["Fishing licenses", "Choose a license"] }],
    requests: [
      "I want to fish in the river legally this summer",
      "get a permit to go fishing in the state",
      "renew my angling licence",
      "purchase a fishing permit for the weekend",
    ],
  },
  {
    id: "solar-quote",
    goal: "Request a quote for solar panels",
    site: "solar.example.com",
    site_title: "Example Solar",
    pages: [{ title: "Get a quote", headings: ["Your home", "Your roof"] }],
    requests: [
      "how much would it cost to put panels on my roof",
      "get an estimate for a solar install",
      "price up solar energy for my house",
      "have someone assess my home for solar",
    ],
  },
  {
    id: "prices-alert",
    goal: "Set a price alert for a product",
    site: "prices.example.com",
    site_title: "Example Price Tracker",
    pages: [{ title: "Sony WH-1000XM5", headings: ["Price history", "Alert me"] }],
    requests: [
      "tell me when the TV gets cheaper",
      "notify me if these headphones drop below $100",
      "watch the price of this laptop",
      "let me know when the sneakers go on sale",
    ],
  },
  {
    id: "carrier-block-number",
    goal: "Block a phone number",
    site: "carrier.example.com",
    site_title: "Example Wireless",
    pages: [{ title: "Blocked numbers", headings: ["Blocked numbers", "Add a number"] }],
    requests: [
      "stop this number from calling me",
      "I keep getting spam calls from 555-0134, make them stop",
      "prevent a caller from reaching me",
      "blacklist a telemarketer",
    ],
  },
  {
    id: "payroll-withholding",
    goal: "Change my tax withholding",
    site: "payroll.example.com",
    site_title: "Example Payroll",
    pages: [{ title: "Tax forms", headings: ["Federal withholding", "W-4"] }],
    requests: [
      "take less tax out of my paycheck",
      "update my W-4",
      "adjust how much federal tax is deducted from my salary",
      "too much is being withheld from my pay",
    ],
  },
  {
    id: "cleaners-booking",
    goal: "Schedule a home cleaning",
    site: "cleaners.example.com",
    site_title: "Example Cleaners",
    pages: [{ title: "Book a clean", headings: ["Your home", "Choose a date"] }],
    requests: [
      "get someone to clean the apartment on Thursday",
      "book a maid for next week",
      "I need the house tidied before guests arrive",
      "arrange a deep clean of my flat",
    ],
  },
  {
    id: "shelter-adopt",
    goal: "Apply to adopt a dog from the shelter",
    site: "shelter.example.org",
    site_title: "Example Animal Shelter",
    pages: [{ title: "Max – Beagle", headings: ["Meet Max", "Adoption application"] }],
    requests: [
      "I want to give a rescue puppy a home",
      "fill in the adoption form for Max the beagle",
      "take in a dog from the animal shelter",
      "start the paperwork to adopt a pet",
    ],
  },
  {
    id: "sitters-evening",
    goal: "Book a babysitter for the evening",
    site: "sitters.example.com",
    site_title: "Example Sitters",
    pages: [{ title: "Find a sitter", headings: ["Available sitters", "Request a booking"] }],
    requests: [
      "find someone to watch the kids on Saturday night",
      "get childcare for tonight",
      "we need a sitter for date night",
      "hire a nanny for a few hours",
    ],
  },
  {
    id: "carrier-replace-sim",
    goal: "Order a replacement SIM card",
    site: "carrier.example.com",
    site_title: "Example Wireless",
    pages: [{ title: "SIM cards", headings: ["Replace your SIM"] }],
    requests: ["my SIM stopped working, send me a new one", "I need a new sim for my phone", "get an eSIM for my new iPhone", "my sim card is damaged"],
  },
  {
    id: "bikes-unlock",
    goal: "Unlock a shared bike",
    site: "bikes.example.com",
    site_title: "Example Bike Share",
    pages: [{ title: "Stations near you", headings: ["Nearby stations", "Unlock"] }],
    requests: [
      "rent a bike from the dock on Main Street",
      "grab a city bike for my ride to work",
      "start a bike share trip",
      "I want to cycle home, free one of the bikes",
    ],
  },
];

/** Requests no ability of any set does. */
export const BLIND3_UNRELATED: readonly string[] = [
  "play some jazz",
  "how many calories are in an avocado",
  "remind me to call mom at 5",
  "tell me a fun fact about octopuses",
  "who won the world cup in 2018",
  "how do I tie a tie",
  "what's the weather in Denver tomorrow",
  "write a haiku about autumn",
  "how long do I boil an egg",
  "set a timer for 10 minutes",
  "what time is it in Tokyo",
  "recommend a good sci-fi novel",
];
