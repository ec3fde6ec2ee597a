import LinuxSupport
import Testing

/// What Debian guarantees of every system: root (uid 0) in group root (0), nobody (65534) with
/// nogroup (65534) as its primary group and not in root.
@Suite struct UserNamesTests {
    @Test func membershipCountsThePrimaryGroupAndTheSupplementaryOnes() {
        #expect(UserNames.user(0, isMemberOf: 0) == true)
        #expect(UserNames.user(65534, isMemberOf: 65534) == true)
        #expect(UserNames.user(65534, isMemberOf: 0) == false)
    }

    @Test func anUnknownUserBelongsNowhere() {
        #expect(UserNames.user(3_999_999_999, isMemberOf: 0) == nil)
    }

    @Test func groupsAreFoundByName() {
        #expect(UserNames.groupID(named: "root") == 0)
        #expect(UserNames.groupID(named: "no-such-group-here") == nil)
    }

    @Test func usersAreFoundByNameAndUID() {
        #expect(UserNames.name(of: 0) == "root")
        #expect(UserNames.uid(named: "root") == 0)
        #expect(UserNames.uid(named: "no-such-user-here") == nil)
    }
}
