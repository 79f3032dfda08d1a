import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A fourth blind evaluation set for ability lookup (issue #15), written at 22:33Z on 2026-11-24 by a
 * helper engineer before the eighth session's lookup round ran on anything, without reading any matcher
 * code. Twenty abilities of app kinds no earlier set has (movers, a coworking space, a school meal
 * account, blood donation, a driving test, dry cleaning, self storage, a wedding registry, a food-bank
 * volunteer rota, a water utility, an internet provider's technician, tutoring, a car ferry, a ski
 * resort, contact lenses, a dentist, a golf club, classified ads, a newspaper subscription, a florist),
 * each given as the compiler gets it (goal, site, page titles and headings), with four requests worded
 * as people say them (the circumstance instead of the action, other verbs and nouns, brands, names,
 * dates and amounts); and fifteen requests that no ability of any set does, a few of them naming a
 * noun of one of these apps without asking for its task.
 *
 * Never tune on it: `bench/lookup-blind.ts` prints its figures only, never its misses.
 */
export const BLIND4_ABILITIES: readonly EvalAbility[] = [
  {
    id: "movers-quote",
    goal: "Get a quote for a house move",
    site: "movers.example.com",
    site_title: "Example Movers",
    pages: [{ title: "Free moving estimate", headings: ["Moving from", "Moving to", "Inventory of rooms"] }],
    requests: [
      "how much to haul a 2-bedroom from Austin to Denver",
      "we're relocating across town on March 3rd, what would a truck and crew cost",
      "price out packers for my apartment",
      "what would it cost to get our furniture taken to Portland",
    ],
  },
  {
    id: "cowork-desk",
    goal: "Book a hot desk at the coworking space",
    site: "cowork.example.com",
    site_title: "Example Cowork",
    pages: [{ title: "Book a space", headings: ["Hot desks", "Choose a day"] }],
    requests: [
      "reserve me a spot to work from at WeWork on Tuesday",
      "I need somewhere quiet to work downtown tomorrow",
      "get me a seat at the shared office for Thursday and Friday",
      "grab a day pass at the coworking place on 5th",
    ],
  },
  {
    id: "lunch-account",
    goal: "Add money to my child's school lunch account",
    site: "schoolmeals.example.com",
    site_title: "Example School Meals",
    pages: [{ title: "Student accounts", headings: ["Meal balance", "Make a payment"] }],
    requests: [
      "Emma's cafeteria balance is negative again",
      "put $40 on my son's lunch card",
      "pay for my kids' school meals for December",
      "top up the canteen account for Liam",
    ],
  },
  {
    id: "blood-donation",
    goal: "Book a blood donation appointment",
    site: "blood.example.org",
    site_title: "Example Blood Service",
    pages: [{ title: "Give blood", headings: ["Find a drive near you", "Choose a time slot"] }],
    requests: [
      "I'd like to give blood next week",
      "find a Red Cross drive near me on Saturday and sign me up",
      "schedule me to donate plasma",
      "it's been 8 weeks since I last donated, set up my next one",
    ],
  },
  {
    id: "driving-test",
    goal: "Book my driving test",
    site: "dmv.example.gov",
    site_title: "Example Department of Motor Vehicles",
    pages: [{ title: "Road skills test", headings: ["Schedule a road test", "Select a location"] }],
    requests: [
      "my learner's permit is six months old, get me a road test",
      "schedule the behind-the-wheel exam for my daughter",
      "I want to take my driver's license test in April",
      "find the earliest slot for the practical exam at the Elm Street DMV",
    ],
  },
  {
    id: "drycleaning-pickup",
    goal: "Schedule a dry cleaning pickup",
    site: "laundry.example.com",
    site_title: "Example Laundry & Dry Cleaning",
    pages: [{ title: "Pickup & delivery", headings: ["Pickup window", "Garment notes"] }],
    requests: [
      "have someone collect my suits on Wednesday morning",
      "my wool coat needs to go to the cleaners, can they come get it",
      "arrange for the laundry service to grab my shirts",
      "get my wedding dress picked up for cleaning",
    ],
  },
  {
    id: "storage-unit",
    goal: "Rent a storage unit",
    site: "storage.example.com",
    site_title: "Example Self Storage",
    pages: [{ title: "Units near you", headings: ["Unit sizes", "Reserve a unit"] }],
    requests: [
      "I need somewhere to keep my furniture for three months",
      "get a 10x10 locker at Public Storage",
      "find a place to stash my stuff while I'm abroad",
      "reserve a climate-controlled space for my boxes",
    ],
  },
  {
    id: "wedding-registry",
    goal: "Create a wedding registry",
    site: "registry.example.com",
    site_title: "Example Registry",
    pages: [{ title: "Start your registry", headings: ["Your wedding details", "Add gifts"] }],
    requests: [
      "we're getting married in June, set up a gift list for the guests",
      "start a list of presents people can buy us for the wedding",
      "make a Zola list for Sam and me",
      "put together a bridal gift list",
    ],
  },
  {
    id: "volunteer-shift",
    goal: "Sign up for a volunteer shift",
    site: "foodbank.example.org",
    site_title: "Example Community Food Bank",
    pages: [{ title: "Volunteer", headings: ["Upcoming shifts", "Sort and pack"] }],
    requests: [
      "I want to help pack food boxes this Saturday",
      "put me down to help out at the food pantry",
      "count me in for sorting donations on the 14th",
      "give back some time at the food bank next week",
    ],
  },
  {
    id: "water-service",
    goal: "Start water service at my new address",
    site: "water.example.gov",
    site_title: "Example Water Utility",
    pages: [{ title: "Start, stop or move service", headings: ["Start service", "New service address"] }],
    requests: [
      "we get the keys to 12 Oak Lane on the 1st, make sure the taps work",
      "set up the water bill in my name for the new place",
      "open a utility account for water at our new house",
      "turn on the water at the house we just bought",
    ],
  },
  {
    id: "isp-technician",
    goal: "Schedule a technician visit for my internet",
    site: "fiber.example.net",
    site_title: "Example Fiber",
    pages: [{ title: "Support", headings: ["Troubleshoot your connection", "Book a technician"] }],
    requests: [
      "my wifi keeps dropping, have someone come out",
      "get a Comcast engineer to the house on Monday",
      "the broadband has been down since yesterday and the reset didn't help, send someone",
      "arrange a home visit to fix my router connection",
    ],
  },
  {
    id: "tutor-session",
    goal: "Book a math tutoring session",
    site: "tutors.example.com",
    site_title: "Example Tutors",
    pages: [{ title: "Find a tutor", headings: ["Algebra tutors", "Book a lesson"] }],
    requests: [
      "my son is failing algebra, find someone to help him",
      "get me an hour with a calculus tutor before Friday's exam",
      "set up a geometry lesson for Maya",
      "I need a real person to help with my statistics homework",
    ],
  },
  {
    id: "ferry-crossing",
    goal: "Book a ferry crossing with my car",
    site: "ferries.example.com",
    site_title: "Example Ferries",
    pages: [{ title: "Sailings", headings: ["Vehicle and passengers", "Choose a sailing"] }],
    requests: [
      "get us and the car across to the island on the 9am boat",
      "reserve a vehicle spot on the boat to Nantucket",
      "we're driving to France via Dover, sort out the channel crossing",
      "take the SUV over on the BC Ferries sailing Saturday",
    ],
  },
  {
    id: "ski-pass",
    goal: "Buy a ski lift pass",
    site: "mountain.example.com",
    site_title: "Example Mountain Resort",
    pages: [{ title: "Lift tickets", headings: ["Day tickets", "Season passes"] }],
    requests: [
      "get two day tickets for the slopes this Saturday",
      "I want to snowboard at Vail over Christmas",
      "buy an Epic pass for the season",
      "we need lift access for the family on January 3rd",
    ],
  },
  {
    id: "contacts-reorder",
    goal: "Reorder my contact lenses",
    site: "lenses.example.com",
    site_title: "Example Lenses",
    pages: [{ title: "My prescriptions", headings: ["Your lenses", "Reorder"] }],
    requests: [
      "I'm on my last pair of Acuvue dailies",
      "order another 90-day box of my contacts",
      "send me more daily disposables",
      "buy a fresh supply of lenses with my usual prescription",
    ],
  },
  {
    id: "dentist-cleaning",
    goal: "Book a dental cleaning",
    site: "smile.example.com",
    site_title: "Example Family Dental",
    pages: [{ title: "Appointments", headings: ["Hygiene visits", "Choose a time"] }],
    requests: [
      "it's been a year since anyone looked at my teeth",
      "get me in with the hygienist next month",
      "schedule a checkup and polish at the dentist",
      "set up a teeth cleaning for my daughter after school",
    ],
  },
  {
    id: "golf-tee-time",
    goal: "Book a tee time",
    site: "golf.example.com",
    site_title: "Example Golf Club",
    pages: [{ title: "Tee sheet", headings: ["Available tee times", "Players"] }],
    requests: [
      "get four of us on the course Sunday morning",
      "reserve 18 holes at Pebble Creek for 7:30",
      "I want to play golf Saturday after lunch",
      "find a starting time for a round with my dad",
    ],
  },
  {
    id: "classifieds-listing",
    goal: "List an item for sale",
    site: "classifieds.example.com",
    site_title: "Example Classifieds",
    pages: [{ title: "Post an ad", headings: ["Category", "Photos and price"] }],
    requests: [
      "put my old couch up on Craigslist for $150",
      "I want to get rid of my kid's bike, advertise it",
      "post an ad selling my PS5",
      "help me find a local buyer for the treadmill",
    ],
  },
  {
    id: "newspaper-hold",
    goal: "Pause my newspaper delivery",
    site: "paper.example.com",
    site_title: "The Example Times – Subscriber Services",
    pages: [{ title: "Manage delivery", headings: ["Vacation hold", "Delivery schedule"] }],
    requests: [
      "we're away from the 20th to the 2nd, stop the paper",
      "don't drop the Sunday Times on my porch while I'm on holiday",
      "put a vacation hold on my print subscription",
      "skip the morning paper for two weeks",
    ],
  },
  {
    id: "florist-send",
    goal: "Send flowers",
    site: "flowers.example.com",
    site_title: "Example Florist",
    pages: [{ title: "Same-day delivery", headings: ["Bouquets", "Delivery details"] }],
    requests: [
      "get a bouquet to my mum for Mother's Day",
      "have a dozen roses delivered to Jess at work tomorrow",
      "my grandmother is in the hospital, have the florist bring her something nice",
      "order a sympathy arrangement for the Garcia family",
    ],
  },
];

/** Requests no ability of any set does; a few name a noun of one of the apps above without asking for its task. */
export const BLIND4_UNRELATED: readonly string[] = [
  "what's the difference between a ferry and a cruise ship",
  "how often do you actually need your teeth cleaned",
  "why do golf balls have dimples",
  "is it bad to sleep in contact lenses",
  "how many times a year are you allowed to give blood",
  "what do people usually put on a wedding registry",
  "what's the best way to pack dishes so they don't break",
  "how do I get a coffee stain out of a white shirt",
  "explain what a router does",
  "what's a good age to start piano lessons",
  "who invented the crossword puzzle",
  "what are the rules of pickleball",
  "help me think of a name for my bakery",
  "write a limerick about a sleepy cat",
  "how much does a gallon of water weigh",
];
