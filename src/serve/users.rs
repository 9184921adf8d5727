//! Who may connect: the admin (in `system:masters`) and the users asked for
//! with `--user NAME[:GROUP,...]`, each with a random bearer token, as a
//! token-auth file gives them to kube-apiserver. A request's token names
//! its user; what that user may do is [`super::rbac`]'s.

use std::collections::BTreeMap;

use super::rbac::{AUTHENTICATED, MASTERS, User};
use super::{ADMIN, tls};

/// One user and its token; `context` names its kubeconfig context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub user: User,
    pub token: String,
    pub context: String,
}

/// The kubeconfig's cluster, and the admin's context and user entry.
pub const CLUSTER: &str = "ownerscope-sim";

/// Parses `NAME[:GROUP,...]`.
///
/// # Errors
/// An empty name or group, a name taken by the admin, a name no token file
/// could hold.
pub fn parse_user(s: &str) -> Result<User, String> {
    let (name, groups) = match s.split_once(':') {
        Some((n, g)) => (n, Some(g)),
        None => (s, None),
    };
    let bad = |x: &str| x.is_empty() || x.chars().any(|c| c.is_control() || c == ',');
    if bad(name) || name.contains(char::is_whitespace) {
        return Err(format!("--user {s:?}: NAME[:GROUP,...], a non-empty name"));
    }
    if name == ADMIN {
        return Err(format!(
            "--user {name}: the admin (in {MASTERS}) is always there, as the kubeconfig's first context"
        ));
    }
    let groups: Vec<&str> = groups.map(|g| g.split(',').collect()).unwrap_or_default();
    if groups.iter().any(|g| bad(g)) {
        return Err(format!("--user {s:?}: a group is empty"));
    }
    Ok(User::authenticated(name, &groups))
}

/// The admin and `users`, each with the token `kept` has for its name
/// (a restart keeps them), else a fresh one.
///
/// # Errors
/// The random generator failed; a user is named twice.
pub fn accounts(users: &[User], kept: &BTreeMap<String, String>) -> Result<Vec<Account>, String> {
    let token = |name: &str| kept.get(name).cloned().map_or_else(tls::token, Ok);
    let mut out = vec![Account {
        user: User::authenticated(ADMIN, &[MASTERS]),
        token: token(ADMIN)?,
        context: CLUSTER.to_string(),
    }];
    for u in users {
        if out.iter().any(|a| a.user.name == u.name) {
            return Err(format!("--user {}: given twice", u.name));
        }
        out.push(Account {
            user: u.clone(),
            token: token(&u.name)?,
            context: format!("{}@{CLUSTER}", u.name),
        });
    }
    Ok(out)
}

/// The accounts as kube-apiserver's `--token-auth-file` has them:
/// `token,user,uid,"group1,group2"` a line (`system:authenticated` is
/// implied).
#[must_use]
pub fn tokens_csv(accounts: &[Account]) -> String {
    accounts
        .iter()
        .map(|a| {
            let groups: Vec<&str> = a
                .user
                .groups
                .iter()
                .map(String::as_str)
                .filter(|g| *g != AUTHENTICATED)
                .collect();
            format!(
                "{},{},{},\"{}\"\n",
                a.token,
                a.user.name,
                a.user.name,
                groups.join(",")
            )
        })
        .collect()
}

/// Each user's token in a [`tokens_csv`] file, by name.
///
/// # Errors
/// A line without a token and a user, or a user or token twice, named by
/// its line.
pub fn parse_tokens_csv(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut tokens = std::collections::BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.splitn(3, ',');
        let (token, name) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        let usable = |x: &str| !x.is_empty() && !x.chars().any(|c| c.is_whitespace() || c == '"');
        if !usable(token) || !usable(name) {
            return Err(format!(
                "line {}: token,user,uid,\"groups\" expected",
                i + 1
            ));
        }
        if !tokens.insert(token) || out.insert(name.to_string(), token.to_string()).is_some() {
            return Err(format!("line {}: user {name:?} or its token again", i + 1));
        }
    }
    Ok(out)
}

/// The user a bearer token authenticates.
#[must_use]
pub fn authenticate<'a>(accounts: &'a [Account], authorization: &str) -> Option<&'a User> {
    let token = authorization.strip_prefix("Bearer ")?.trim();
    accounts.iter().find(|a| a.token == token).map(|a| &a.user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::rbac::AUTHENTICATED;

    #[test]
    fn users_parse_and_tokens_name_them() {
        let u = parse_user("restricted:team-a,team-b").expect("parses");
        assert_eq!(u.name, "restricted");
        assert_eq!(u.groups, vec!["team-a", "team-b", AUTHENTICATED]);
        assert_eq!(
            parse_user("solo").expect("parses").groups,
            vec![AUTHENTICATED]
        );
        for bad in ["", ":g", "a:", "a:g,,h", "admin", "a b"] {
            assert!(parse_user(bad).is_err(), "{bad:?}");
        }
        let accts = accounts(std::slice::from_ref(&u), &BTreeMap::new()).expect("made");
        assert_eq!(accts[0].user.groups, vec![MASTERS, AUTHENTICATED]);
        assert_eq!(accts[1].context, "restricted@ownerscope-sim");
        let bearer = format!("Bearer {}", accts[1].token);
        assert_eq!(authenticate(&accts, &bearer), Some(&u));
        assert_eq!(authenticate(&accts, "Bearer nope"), None);
        assert_eq!(
            authenticate(&accts, &accts[1].token),
            None,
            "not a bearer header"
        );
        assert!(accounts(&[u.clone(), u.clone()], &BTreeMap::new()).is_err());

        // Saved as a token file and read back, the tokens are kept; a
        // user new on this start gets a fresh one.
        let csv = tokens_csv(&accts);
        assert!(
            csv.contains(&format!(
                "{},restricted,restricted,\"team-a,team-b\"\n",
                accts[1].token
            )),
            "{csv}"
        );
        let kept = parse_tokens_csv(&csv).expect("parses");
        let newcomer = parse_user("newcomer").expect("parses");
        let again = accounts(&[u, newcomer], &kept).expect("made");
        assert_eq!(again[0].token, accts[0].token);
        assert_eq!(again[1].token, accts[1].token);
        assert!(!kept.values().any(|t| *t == again[2].token));
        for bad in ["tok", ",admin", "a,b\nc,b", "t,a\nt,b", "to ken,admin"] {
            assert!(parse_tokens_csv(bad).is_err(), "{bad:?}");
        }
    }
}
