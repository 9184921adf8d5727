//! Counted nouns as a person writes them: "1 object", "3 objects".

/// `n` and the noun, plural unless `n` is 1.
#[must_use]
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {}", plural(noun))
    }
}

/// The noun's plural, as English makes the nouns used here ("dependency"
/// -> "dependencies", "match" -> "matches", "object" -> "objects").
#[must_use]
pub fn plural(noun: &str) -> String {
    if let Some(stem) = noun.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        format!("{stem}ies")
    } else if ["ch", "sh", "s", "x"].iter().any(|e| noun.ends_with(e)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// The noun alone, plural unless `n` is 1.
#[must_use]
pub fn noun(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_string()
    } else {
        plural(noun)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1, "object"), "1 object");
        assert_eq!(count(0, "object"), "0 objects");
        assert_eq!(count(12, "dependent"), "12 dependents");
        assert_eq!(count(2, "policy"), "2 policies");
        assert_eq!(count(2, "key"), "2 keys");
        assert_eq!(count(3, "match"), "3 matches");
        assert_eq!(count(2, "class"), "2 classes");
        assert_eq!(noun(1, "root"), "root");
    }
}
