"""Synthetic shopping domains: product categories, each with its own aspects and values.

TRACER's customer wants one product family inside a category (lipstick, blenders) and
the seller narrows a real catalog down by aspect values. A useful synthetic stand-in
needs what the paper's TREC/Amazon catalog has: many categories per domain, each with
its own aspects (a blender's wattage, a lipstick's finish), a few aspects every product
has (brand, price range, customer review; price and reviews already bucketed into
ranges as the paper does), skewed value frequencies (so "the three most frequent values"
are informative hints) and products that miss some aspects. The words are our own.
Value lists are ordered by how common the value is: the generator draws with weights
falling along the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PRICE = "price"
REVIEW = "customer_review"
BRAND = "brand"
REVIEW_VALUES = ("higher than 4.5 stars", "higher than 4 stars", "higher than 3.5 stars", "higher than 3 stars")


@dataclass(frozen=True)
class CategorySpec:
    """One product category: its singular noun, brands, price buckets and own aspects."""

    name: str
    noun: str
    brands: tuple[str, ...]
    prices: tuple[str, ...]
    aspects: dict[str, tuple[str, ...]]
    weight: float = 1.0

    def all_aspects(self) -> dict[str, tuple[str, ...]]:
        return {BRAND: self.brands, **self.aspects, PRICE: self.prices, REVIEW: REVIEW_VALUES}


@dataclass(frozen=True)
class ShoppingDomain:
    name: str
    title: str
    categories: tuple[CategorySpec, ...]
    glosses: dict[str, str] = field(default_factory=dict)


def _prices(*bounds: int) -> tuple[str, ...]:
    return tuple(f"between ${lo} and ${hi}" for lo, hi in zip(bounds, bounds[1:]))


ELECTRONICS = ShoppingDomain("electronics", "Electronics", (
    CategorySpec("headphones", "pair of headphones", ("Auralux", "Sonvio", "Kestrel Audio", "Bassline", "Quietude"),
                 _prices(15, 30, 60, 120, 250), {
                     "connectivity": ("bluetooth", "wired", "usb-c", "wireless dongle"),
                     "form_factor": ("over-ear", "in-ear", "on-ear", "open-back"),
                     "noise_control": ("active noise cancellation", "passive isolation", "none"),
                     "color": ("black", "white", "navy blue", "rose gold", "silver"),
                     "battery_life": ("up to 40 hours", "up to 20 hours", "up to 60 hours", "up to 8 hours"),
                 }),
    CategorySpec("laptop cooling pads", "laptop cooling pad", ("Frostbyte", "Kootra", "Airwell", "Chillmate"),
                 _prices(15, 25, 40, 70), {
                     "fan_count": ("5 fans", "1 fan", "2 fans", "4 fans", "6 fans"),
                     "laptop_size": ("12-17 inches", "up to 15.6 inches", "up to 19 inches"),
                     "lighting": ("blue led", "rgb", "no lighting"),
                     "color": ("black", "silver", "white", "blue"),
                     "adjustable_height": ("yes", "no"),
                 }),
    CategorySpec("phone cases", "phone case", ("Armorly", "Casetto", "Shellwise", "Grippo", "Lumacase"),
                 _prices(8, 15, 25, 45), {
                     "compatible_model": ("iphone 15", "iphone 14", "galaxy s24", "pixel 8", "iphone 13"),
                     "material": ("tpu", "silicone", "polycarbonate", "leather", "aramid fiber"),
                     "color": ("clear", "black", "blue", "pink", "green", "purple"),
                     "special_feature": ("shockproof", "magnetic charging", "card holder", "kickstand"),
                 }),
    CategorySpec("portable chargers", "portable charger", ("Voltaro", "Ampere Go", "Chargebee", "Powerlyn"),
                 _prices(15, 25, 40, 80), {
                     "capacity": ("10000 mah", "20000 mah", "5000 mah", "26800 mah"),
                     "output_ports": ("2 ports", "1 port", "3 ports", "4 ports"),
                     "fast_charging": ("power delivery", "quick charge", "none"),
                     "color": ("black", "white", "blue", "red"),
                     "wireless_charging": ("no", "yes"),
                 }),
    CategorySpec("computer mice", "computer mouse", ("Clickwell", "Tracera", "Glidepoint", "Nexmouse", "Pointrix"),
                 _prices(10, 20, 40, 80), {
                     "connectivity": ("wireless dongle", "bluetooth", "wired", "usb-c"),
                     "hand_orientation": ("right-handed", "ambidextrous", "left-handed"),
                     "dpi": ("1600 dpi", "800 dpi", "4000 dpi", "16000 dpi"),
                     "button_count": ("3 buttons", "6 buttons", "8 buttons", "12 buttons"),
                     "color": ("black", "grey", "white", "pink"),
                 }),
    CategorySpec("bluetooth speakers", "bluetooth speaker", ("Boomly", "Sonvio", "Echowave", "Tonetree"),
                 _prices(20, 40, 80, 150), {
                     "water_resistance": ("ipx7", "ipx5", "ip67", "not water resistant"),
                     "battery_life": ("up to 12 hours", "up to 24 hours", "up to 6 hours", "up to 30 hours"),
                     "speaker_size": ("portable", "mini", "party size"),
                     "color": ("black", "blue", "red", "teal", "camouflage"),
                 }),
), glosses={
    "connectivity": "how it connects to your device",
    "form_factor": "the shape and how it sits on or in your ears",
    "noise_control": "how much outside noise it blocks",
    "dpi": "how sensitive the cursor is to small hand movements",
    "fast_charging": "the standard that lets it charge phones faster",
    "capacity": "how much energy it stores, in milliamp hours",
    "water_resistance": "how well it survives splashes or a dip in water",
})

HOME_KITCHEN = ShoppingDomain("home_kitchen", "Home & Kitchen", (
    CategorySpec("countertop blenders", "countertop blender", ("Whirlo", "Oskar", "Vitablend", "Nutrimix", "Kacso"),
                 _prices(25, 50, 100, 200, 400), {
                     "wattage": ("1000 watts", "700 watts", "1500 watts", "1200 watts"),
                     "capacity": ("64 ounces", "48 ounces", "72 ounces", "32 ounces"),
                     "blade_material": ("stainless steel", "titanium coated", "plastic"),
                     "is_dishwasher_safe": ("yes", "no"),
                     "number_of_speeds": ("3 speeds", "10 speeds", "16 speeds", "variable"),
                     "color": ("black", "silver", "red", "white"),
                 }),
    CategorySpec("fitted sheets", "fitted sheet", ("Bare Nest", "Dreamweave", "Linenly", "Cozyfold"),
                 _prices(12, 25, 45, 90), {
                     "size": ("queen", "full", "twin", "king", "california king"),
                     "material": ("microfiber", "cotton", "bamboo viscose", "linen", "flannel"),
                     "color": ("white", "grey", "natural", "navy", "sage green", "black"),
                     "pocket_depth": ("deep pocket 15 inches", "standard 12 inches", "extra deep 18 inches"),
                     "thread_count": ("300", "400", "600", "1000"),
                 }),
    CategorySpec("coffee makers", "coffee maker", ("Brewster", "Morningcup", "Caffeio", "Dripwell", "Percolo"),
                 _prices(20, 40, 80, 160, 300), {
                     "brew_type": ("drip", "single serve pod", "french press", "espresso", "cold brew"),
                     "capacity": ("12 cups", "1 cup", "5 cups", "10 cups"),
                     "programmable": ("yes", "no"),
                     "carafe_material": ("glass", "thermal stainless steel", "none"),
                     "color": ("black", "stainless steel", "white", "red"),
                 }),
    CategorySpec("kitchen knife sets", "kitchen knife set", ("Edgecraft", "Sakana", "Forgeline", "Bladewell"),
                 _prices(25, 50, 100, 200, 400), {
                     "number_of_pieces": ("15 pieces", "6 pieces", "3 pieces", "20 pieces"),
                     "blade_material": ("high carbon stainless steel", "german steel", "damascus steel", "ceramic"),
                     "handle_material": ("pakkawood", "plastic", "stainless steel", "olive wood"),
                     "includes_block": ("yes", "no"),
                 }),
    CategorySpec("bath towels", "bath towel set", ("Plushly", "Terrycloud", "Aegean Home", "Softloom"),
                 _prices(15, 30, 60, 120), {
                     "material": ("cotton", "turkish cotton", "bamboo", "microfiber"),
                     "color": ("white", "grey", "navy", "beige", "aqua", "charcoal"),
                     "number_of_pieces": ("6 pieces", "4 pieces", "8 pieces", "2 pieces"),
                     "fabric_weight": ("600 gsm", "500 gsm", "700 gsm", "400 gsm"),
                 }),
    CategorySpec("cookware sets", "cookware set", ("Panwise", "Castelli", "Heatwell", "Simmerly", "Ironhaus"),
                 _prices(40, 80, 150, 300, 600), {
                     "material": ("nonstick aluminum", "stainless steel", "cast iron", "ceramic", "copper"),
                     "number_of_pieces": ("10 pieces", "12 pieces", "5 pieces", "17 pieces"),
                     "is_oven_safe": ("yes", "no"),
                     "compatible_cooktop": ("all cooktops", "gas and electric", "induction"),
                     "color": ("black", "silver", "red", "cream", "blue"),
                 }),
), glosses={
    "pocket_depth": "how tall a mattress the sheet's corners can wrap around",
    "thread_count": "how many threads are woven into a square inch; higher feels smoother",
    "fabric_weight": "how heavy and thick the fabric is, in grams per square metre",
    "carafe_material": "what the pot that holds the brewed coffee is made of",
    "compatible_cooktop": "which stoves the pans work on",
    "wattage": "how powerful the motor is",
})

BEAUTY = ShoppingDomain("beauty", "Beauty & Personal Care", (
    CategorySpec("lipstick", "lipstick", ("Rougeva", "Maybella", "Velvetine", "Gocheapo", "Lumiere"),
                 _prices(5, 10, 20, 40), {
                     "color": ("red", "nude", "pink", "berry", "coral", "plum"),
                     "finish_type": ("matte", "satin", "glossy", "cream", "metallic"),
                     "form": ("stick", "liquid", "cream", "pencil"),
                     "skin_type": ("all", "dry", "normal", "sensitive"),
                     "special_feature": ("long-lasting", "moisturizing", "waterproof", "vegan"),
                 }),
    CategorySpec("shampoo", "shampoo", ("Herbalo", "Silkroot", "Pureleaf", "Mane Theory", "Ocean Mist"),
                 _prices(5, 10, 20, 40), {
                     "hair_type": ("all hair types", "curly", "dry", "oily", "color treated"),
                     "scent": ("coconut", "unscented", "lavender", "citrus", "tea tree"),
                     "size": ("12 fluid ounces", "16 fluid ounces", "8 fluid ounces", "33.8 fluid ounces"),
                     "is_sulfate_free": ("yes", "no"),
                 }),
    CategorySpec("face moisturizers", "face moisturizer", ("Dermalia", "Glowwell", "Hydraskin", "Cerava"),
                 _prices(8, 15, 30, 60), {
                     "skin_type": ("all", "dry", "oily", "combination", "sensitive"),
                     "spf": ("none", "spf 30", "spf 15", "spf 50"),
                     "key_ingredient": ("hyaluronic acid", "ceramides", "niacinamide", "retinol", "aloe vera"),
                     "texture": ("cream", "gel", "lotion"),
                     "fragrance": ("fragrance free", "lightly scented"),
                 }),
    CategorySpec("nail polish", "bottle of nail polish", ("Lacquerie", "Polisha", "Tipsy Nails", "Chromella"),
                 _prices(4, 8, 15, 30), {
                     "color": ("red", "nude", "pink", "black", "glitter silver", "lilac"),
                     "finish_type": ("glossy", "matte", "shimmer", "gel-like"),
                     "formula": ("regular", "quick dry", "gel", "breathable"),
                     "special_feature": ("chip resistant", "non-toxic", "vegan"),
                 }),
    CategorySpec("hair dryers", "hair dryer", ("Blowra", "Aerotress", "Windsilk", "Dysona", "Heatly"),
                 _prices(20, 40, 80, 160, 400), {
                     "wattage": ("1875 watts", "1600 watts", "2000 watts", "1200 watts"),
                     "technology": ("ionic", "ceramic", "tourmaline", "infrared"),
                     "attachments": ("diffuser and concentrator", "concentrator only", "none"),
                     "color": ("black", "pink", "white", "purple"),
                     "foldable": ("no", "yes"),
                 }),
    CategorySpec("perfume", "perfume", ("Maison Elan", "Floravie", "Noctis", "Ambrette", "Solenne"),
                 _prices(15, 30, 60, 120, 250), {
                     "scent_family": ("floral", "woody", "fresh", "oriental", "fruity"),
                     "concentration": ("eau de parfum", "eau de toilette", "parfum", "body mist"),
                     "volume": ("1.7 fluid ounces", "3.4 fluid ounces", "1 fluid ounce", "0.33 fluid ounces"),
                     "target_gender": ("women", "unisex", "men"),
                 }),
), glosses={
    "finish_type": "how shiny or flat it looks once applied",
    "form": "whether it comes as a stick, a liquid or another format",
    "spf": "how much protection from the sun it gives",
    "key_ingredient": "the main active ingredient doing the work",
    "concentration": "how strong the fragrance is and how long it lasts",
    "scent_family": "the overall character of the smell",
    "technology": "how the dryer heats and smooths the hair",
    "formula": "how the polish is made and how it dries",
})

DOMAINS: dict[str, ShoppingDomain] = {d.name: d for d in (ELECTRONICS, HOME_KITCHEN, BEAUTY)}

GLOSSES: dict[str, str] = {k: v for d in DOMAINS.values() for k, v in d.glosses.items()}
"""What aspects mean, across domains (the seller's product knowledge; any catalog may use it)."""
