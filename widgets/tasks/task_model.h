// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/tasks/task.h"

#include <QAbstractItemModel>

namespace dice {

// Tasks grouped by level: three top-level rows (levels 1 to 3) with the tasks under them.
// Columns: name, title, family.
class TaskModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TitleColumn, FamilyColumn, ColumnCount };
    enum Role { TaskNameRole = Qt::UserRole + 1, LevelRole };

    explicit TaskModel(QObject* parent = nullptr);

    void setTasks(const std::vector<Task>& tasks);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString levelName(int level);

private:
    struct Row {
        QString name;
        QString title;
        QString family;
    };
    std::vector<Row> m_levels[3];
};

} // namespace dice
