// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>

#include <nlohmann/json.hpp>

#include <vector>

namespace dice {

// The rollouts of one step of a run (rollouts/STEP.jsonl) as a table: group, task, level,
// reward, advantage, verdict, flags, answer length, denoising passes, and whether the update
// kept it. Sorting uses the numbers, not their text.
class RolloutModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Group, Task, Level, Reward, Advantage, Verdict, Flags, Tokens, Passes, Kept };
    static constexpr int kColumns = 10;
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit RolloutModel(QObject* parent = nullptr);

    void setRollouts(std::vector<nlohmann::json> rollouts);
    const std::vector<nlohmann::json>& rollouts() const { return m_rollouts; }
    const nlohmann::json& rollout(int row) const { return m_rollouts.at(static_cast<size_t>(row)); }

    // The rows of the best and the worst rollout of a row's group (by reward; the first of
    // equals), or -1 when the row is out of range.
    std::pair<int, int> bestAndWorst(int row) const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // A rollout's reward (its "reward" object's value, or a bare number).
    static double rewardOf(const nlohmann::json& rollout);
    // Whether the judge counted it correct (its "reward" object's "correct").
    static bool correctOf(const nlohmann::json& rollout);

private:
    std::vector<nlohmann::json> m_rollouts;
};

} // namespace dice
