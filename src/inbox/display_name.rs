//! Friendly names for contacts nobody has named yet (anonymous chat visitors): "Teal Otter"
//! rather than "Visitor 3f2a…", so agents can tell two visitors apart and say who they mean.
//! Made from the contact's id alone: stable across requests, processes and releases, with
//! nothing stored. Changing these lists renames every anonymous visitor, so only ever append.

use uuid::Uuid;

const ADJECTIVES: [&str; 32] = [
    "Amber", "Azure", "Brave", "Bright", "Calm", "Clever", "Coral", "Crimson", "Daring", "Eager",
    "Gentle", "Golden", "Happy", "Indigo", "Jolly", "Kind", "Lively", "Lucky", "Mellow", "Misty",
    "Noble", "Olive", "Plucky", "Quiet", "Rosy", "Silver", "Sunny", "Swift", "Teal", "Violet",
    "Witty", "Zesty",
];

const ANIMALS: [&str; 32] = [
    "Badger", "Beaver", "Bison", "Crane", "Dolphin", "Falcon", "Ferret", "Finch", "Fox", "Gecko",
    "Heron", "Ibis", "Koala", "Lemur", "Lynx", "Marten", "Moose", "Narwhal", "Ocelot", "Otter",
    "Owl", "Panda", "Puffin", "Quokka", "Raven", "Robin", "Seal", "Sparrow", "Tapir", "Turtle",
    "Walrus", "Wombat",
];

/// The friendly name of the contact `id`, e.g. "Teal Otter".
pub fn friendly(id: Uuid) -> String {
    let bytes = id.as_bytes();
    // The last bytes: random in both UUIDv4 and UUIDv7 (the first ones of a v7 are a clock).
    let adjective = ADJECTIVES[usize::from(bytes[15]) % ADJECTIVES.len()];
    let animal = ANIMALS[usize::from(bytes[14]) % ANIMALS.len()];
    format!("{adjective} {animal}")
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn the_same_contact_always_gets_the_same_name() {
        let id = Uuid::new_v4();
        assert_eq!(friendly(id), friendly(id));
        let fixed = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cd13);
        assert_eq!(friendly(fixed), "Misty Lemur");
    }

    #[test]
    fn visitors_are_told_apart() {
        let names: HashSet<String> = (0..200).map(|_| friendly(Uuid::new_v4())).collect();
        // 1,024 names: 200 random visitors share a name only now and then.
        assert!(names.len() > 150, "only {} distinct names", names.len());
    }
}
