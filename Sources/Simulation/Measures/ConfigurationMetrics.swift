/// The headline measures of one configuration, derived from its tally and the holdout's.
public struct ConfigurationMetrics: Sendable {
    public let label: String
    public let isHoldout: Bool
    public let users, opens, organicOpens, responseOpens, launches: Int64
    /// Notification outcomes (ENGINES.md), and the returns they caused.
    public let scheduled, cancelled, delivered, foreground, suppressed, censored, responded: Int64
    /// Opens within the attribution window of a delivery; users who turned notifications off; dormant
    /// users brought back by a response.
    public let attributed, optOuts, revived: Int64
    /// Delivery policies (extensions): notifications not shown over a frequency cap, fire times moved out of
    /// quiet hours, fire times moved into a send window.
    public let capped, deferred, shifted: Int64
    /// Platform rules: notifications the system discarded past its pending limit, not shown for want
    /// of permission (part of `suppressed`), delivered quietly (part of `delivered`), alarms deferred
    /// by an idle device; users shown the permission prompt, and those who allowed notifications.
    public let dropped, noPermission, quietDelivered, dozed, permissionAsked, permissionGranted: Int64
    /// Triggered (delivered + foreground + suppressed) out of scheduled − censored.
    public let triggerRate: Proportion
    /// Responded out of delivered.
    public let responseRate: Proportion
    public let optOutRate: Proportion
    public let retentionD1: Proportion
    public let retentionD7: Proportion
    public let retentionD30: Proportion
    /// Opens per user above the holdout (paired), with its interval.
    public let opensLiftPerUser: Estimate?
    public let incrementalOpens: Int64
    /// Retention above the holdout, in percentage points as a fraction (paired).
    public let liftD7: Estimate?
    public let liftD30: Estimate?
    public let incrementalRetainedD7: Int64
    public let incrementalRetainedD30: Int64
    /// Notifications delivered per open gained over the holdout; nil when nothing was gained.
    public let deliveredPerIncrementalOpen: Double?
    /// Notifications delivered per user, with its interval (nil for a run stored without sums over users).
    public let deliveredPerUser: Estimate?
    /// Opt-outs per delivered notification and attributed opens per delivered notification (clustered).
    public let optOutsPerDelivered: Proportion
    public let attributedPerDelivered: Proportion

    public var triggered: Int64 { delivered + foreground + suppressed }

    /// - Parameters: `sums` and `index`: the run's sums over users and this configuration's place in
    ///   them, for the user-clustered intervals; without them rates carry Wilson intervals.
    ///   `replay`: for a run that replays recorded users, the intervals clustered by recorded user.
    public init(label: String, tally t: Tally, isHoldout: Bool, sums: UserSums? = nil, index: Int = 0,
                replay: ReplayClustering? = nil) {
        func clustered(_ r: ClusteredRatio) -> RatioSums? {
            guard let replay else { return sums?.ratio(index, r, users: t[.users]) }
            switch r {
            case .trigger: return replay.configuration(index, .trigger)
            case .response: return replay.configuration(index, .response)
            case .attributed: return replay.configuration(index, .attributed)
            case .optOut: return replay.configuration(index, .optOutPerDelivered)
            }
        }
        // Against the holdout (a = 0), a pair's differences are holdout − this configuration.
        func versusHoldout(_ m: PairMeasure, _ naive: Estimate?) -> Estimate? {
            guard !isHoldout, let replay else { return naive }
            return replay.difference(index, 0, m)
        }
        self.label = label
        self.isHoldout = isHoldout
        users = t[.users]
        opens = t[.opens]
        organicOpens = t[.organicOpens]
        responseOpens = t[.responseOpens]
        launches = t[.launches]
        scheduled = t[.scheduled]
        cancelled = t[.cancelled]
        delivered = t[.delivered]
        foreground = t[.foreground]
        suppressed = t[.suppressed]
        censored = t[.censored]
        responded = t[.responded]
        attributed = t[.attributed]
        optOuts = t[.optOuts]
        revived = t[.revived]
        (capped, deferred, shifted) = (t[.capped], t[.deferred], t[.shifted])
        (dropped, noPermission, quietDelivered) = (t[.dropped], t[.noPermission], t[.quietDelivered])
        (dozed, permissionAsked, permissionGranted) = (t[.dozed], t[.permissionAsked], t[.permissionGranted])
        triggerRate = Proportion(t[.delivered] + t[.foreground] + t[.suppressed], of: t[.scheduled] - t[.censored],
                                 clustered: clustered(.trigger))
        responseRate = Proportion(t[.responded], of: t[.delivered], clustered: clustered(.response))
        optOutsPerDelivered = Proportion(t[.optOuts], of: t[.delivered], clustered: clustered(.optOut))
        attributedPerDelivered = Proportion(t[.attributed], of: t[.delivered], clustered: clustered(.attributed))
        if isHoldout {
            deliveredPerUser = t[.users] > 0 ? Estimate(value: 0, low: 0, high: 0) : nil
        } else if let sums, index > 0, let squares = sums.pair(0, index, .deliveredDiffSquares) {
            // Against the holdout, which delivers nothing, the pair's squared differences are Σ delivered².
            deliveredPerUser = versusHoldout(.deliveredPerUser,
                                             Estimate.mean(sum: t[.delivered], squares: squares, count: t[.users]))
        } else {
            deliveredPerUser = nil
        }
        optOutRate = Proportion(t[.optOuts], of: t[.users], clustered: replay?.configuration(index, .optOutRate))
        retentionD1 = Proportion(t[.retainedD1], of: t[.eligibleD1])
        retentionD7 = Proportion(t[.retainedD7], of: t[.eligibleD7], clustered: replay?.configuration(index, .retentionD7))
        retentionD30 = Proportion(t[.retainedD30], of: t[.eligibleD30], clustered: replay?.configuration(index, .retentionD30))
        opensLiftPerUser = isHoldout ? nil : versusHoldout(
            .opensPerUser, Estimate.mean(sum: t[.opensLiftSum], squares: t[.opensLiftSquares], count: t[.users]))
        incrementalOpens = t[.opensLiftSum]
        liftD7 = isHoldout ? nil : versusHoldout(
            .retentionD7, Estimate.pairedDifference(gained: t[.gainedD7], lost: t[.lostD7], count: t[.eligibleD7], first: t[.retainedD7]))
        liftD30 = isHoldout ? nil : versusHoldout(
            .retentionD30, Estimate.pairedDifference(gained: t[.gainedD30], lost: t[.lostD30], count: t[.eligibleD30], first: t[.retainedD30]))
        incrementalRetainedD7 = t[.gainedD7] - t[.lostD7]
        incrementalRetainedD30 = t[.gainedD30] - t[.lostD30]
        deliveredPerIncrementalOpen = !isHoldout && t[.opensLiftSum] > 0 ? Double(t[.delivered]) / Double(t[.opensLiftSum]) : nil
    }
}
