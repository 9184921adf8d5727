use super::*;

fn server() -> ApiServer {
    ApiServer::new(KindTable::builtin(), 1, Timestamp::UNIX_EPOCH)
}

#[test]
fn uids_are_deterministic_per_seed() {
    let a: Vec<Uid> = (0..3).map(|_| UidGen::new(7).next_uid()).collect();
    assert_eq!(a[0], a[1]);
    let mut g = UidGen::new(7);
    assert_ne!(g.next_uid(), g.next_uid());
    assert_ne!(UidGen::new(7).next_uid(), UidGen::new(8).next_uid());
}

#[test]
fn delete_of_plain_object_removes_it_with_200() {
    let mut api = server();
    let c = Caller::default();
    let resp = api.create(Object::new("v1", "ConfigMap", Some("a"), "x"), &c, false);
    assert_eq!(resp.code, 201);
    let key = Key {
        group: String::new(),
        kind: "ConfigMap".into(),
        namespace: Some("a".into()),
        name: "x".into(),
    };
    let resp = api.delete(&key, &DeleteOptions::policy(Policy::Background));
    assert_eq!((resp.code, resp.removed), (200, true));
    assert_eq!(
        api.delete(&key, &DeleteOptions::default()).message,
        "configmaps \"x\" not found"
    );
}
